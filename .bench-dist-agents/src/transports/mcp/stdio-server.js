import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ErrorCode, GetPromptRequestSchema, ListPromptsRequestSchema, ListResourcesRequestSchema, ListToolsRequestSchema, McpError, ReadResourceRequestSchema, } from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';
import { mcpToolsOf } from '../../registry/mcp-tools.js';
import { callTool, UnknownToolError } from './call-tool.js';
import { SERVER_INSTRUCTIONS } from './instructions.js';
import { CAPABILITIES, ContentError, contentHandlers } from './content-handlers.js';
/** The MCP server over stdio: the official SDK `Server`, driven from the registry. */
export function createMcpServer(opts) {
    const server = new Server({ name: 'core-server', title: 'Machine Compute, Chain and Contract Service', version: opts.version }, { capabilities: CAPABILITIES, instructions: SERVER_INSTRUCTIONS });
    const tools = mcpToolsOf(opts.surface.registry, opts.surface.filter);
    const creds = opts.apiKey ? { bearer: opts.apiKey } : {};
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
    const content = contentHandlers(opts.surface.content);
    const asMcpError = async (work) => {
        try {
            return await work();
        }
        catch (err) {
            if (err instanceof ContentError)
                throw new McpError(err.code, err.message);
            throw err;
        }
    };
    server.setRequestHandler(ListResourcesRequestSchema, () => content.listResources());
    server.setRequestHandler(ReadResourceRequestSchema, (req) => asMcpError(() => content.readResource(req.params.uri)));
    server.setRequestHandler(ListPromptsRequestSchema, () => content.listPrompts());
    server.setRequestHandler(GetPromptRequestSchema, (req) => asMcpError(() => content.getPrompt(req.params.name, req.params.arguments ?? {})));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
        const token = request.params._meta?.progressToken;
        try {
            return await callTool(opts.surface, request.params.name, request.params.arguments, creds, {
                surface: 'mcp-stdio',
                requestId: randomUUID(),
                signal: extra.signal,
                progress: (p) => {
                    if (token === undefined)
                        return;
                    void extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, ...p } });
                },
            });
        }
        catch (err) {
            if (err instanceof UnknownToolError)
                throw new McpError(ErrorCode.InvalidParams, err.message);
            throw err;
        }
    });
    return server;
}
export async function serveStdio(opts) {
    const server = createMcpServer(opts);
    await server.connect(new StdioServerTransport());
    return server;
}
//# sourceMappingURL=stdio-server.js.map