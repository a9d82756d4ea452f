import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';
import { mcpToolsOf } from '../../registry/mcp-tools.js';
import { callTool, UnknownToolError, type ToolSurface } from './call-tool.js';
import { SERVER_INSTRUCTIONS } from './instructions.js';
import { CAPABILITIES, ContentError, contentHandlers } from './content-handlers.js';
import { unavailableRpcOf } from './unavailable-rpc.js';
import { serverInfoOf } from './modern-era.js';
import { eraAwareTransport } from './stdio-era.js';
import type { StdioKey } from './stdio-key.js';

export interface StdioOptions {
  /** The surface, or its promise while the core is still loading (initialize does not wait for it). */
  surface: ToolSurface | Promise<ToolSurface>;
  /** The caller's key (`CORE_API_KEY`, or one this session minted: see `stdio-key.ts`); none when absent. */
  key?: StdioKey;
  version: string;
}

/** The stdio MCP server, and a way to wait for the requests it is handling. */
export type StdioServer = Server & {
  /** Resolves once no request handler is running (those started meanwhile included). */
  settled(): Promise<void>;
  /** Resolves once a request has been answered: the one running now, else the next one to come. */
  answered(): Promise<void>;
};

/** The MCP server over stdio: the official SDK `Server`, driven from the registry. */
export function createMcpServer(opts: StdioOptions): StdioServer {
  const running = new Set<Promise<unknown>>();
  let onAnswered: Array<() => void> = [];
  /** Tracks a handler's work, so shutdown can let calls in flight finish before the core closes. */
  const tracked =
    <A extends unknown[], T>(handler: (...args: A) => Promise<T>) =>
    (...args: A): Promise<T> => {
      const work = handler(...args);
      running.add(work);
      const done = () => {
        running.delete(work);
        if (onAnswered.length === 0) return;
        // The SDK writes the answer when the handler's promise settles: listeners hear of it a turn later.
        const waiting = onAnswered;
        onAnswered = [];
        setImmediate(() => waiting.forEach((listener) => listener()));
      };
      work.then(done, done);
      return work;
    };
  const server = new Server(
    { name: 'core-server', title: 'Machine Compute, Chain and Contract Service', version: opts.version },
    { capabilities: CAPABILITIES, instructions: SERVER_INSTRUCTIONS },
  );
  const ready = Promise.resolve(opts.surface);
  let tools: ReturnType<typeof mcpToolsOf> | undefined;
  const credentials = () => {
    const bearer = opts.key?.current();
    return bearer ? { bearer } : {};
  };

  server.setRequestHandler(
    ListToolsRequestSchema,
    tracked(async () => {
      const surface = await ready;
      return { tools: (tools ??= mcpToolsOf(surface.registry, surface.filter)) };
    }),
  );
  const content = async () => contentHandlers((await ready).content);
  const asMcpError = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (err) {
      if (err instanceof ContentError) throw new McpError(err.code, err.message, err.data);
      const unavailable = unavailableRpcOf(err);
      if (unavailable !== undefined) throw new McpError(unavailable.code, unavailable.message, unavailable.data);
      throw err;
    }
  };
  server.setRequestHandler(
    ListResourcesRequestSchema,
    tracked(() => asMcpError(async () => (await content()).listResources())),
  );
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: [] }));
  server.setRequestHandler(
    ReadResourceRequestSchema,
    tracked((req) => asMcpError(async () => (await content()).readResource(req.params.uri))),
  );
  server.setRequestHandler(
    ListPromptsRequestSchema,
    tracked(() => asMcpError(async () => (await content()).listPrompts())),
  );
  server.setRequestHandler(
    GetPromptRequestSchema,
    tracked((req) => asMcpError(async () => (await content()).getPrompt(req.params.name, req.params.arguments ?? {}))),
  );
  server.setRequestHandler(
    CallToolRequestSchema,
    tracked(async (request, extra) => {
      const token = request.params._meta?.progressToken;
      try {
        const result = await callTool(await ready, request.params.name, request.params.arguments, credentials(), {
          surface: 'mcp-stdio',
          requestId: randomUUID(),
          signal: extra.signal,
          progress: (p) => {
            if (token === undefined) return;
            void extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, ...p } });
          },
        });
        return opts.key ? await opts.key.observe(request.params.name, request.params.arguments, result) : result;
      } catch (err) {
        if (err instanceof UnknownToolError) throw new McpError(ErrorCode.InvalidParams, err.message);
        throw err;
      }
    }),
  );
  return Object.assign(server, {
    async settled(): Promise<void> {
      while (running.size > 0) await Promise.allSettled([...running]);
    },
    answered: () => new Promise<void>((resolve) => onAnswered.push(resolve)),
  });
}

/** Serves both MCP eras over this process's stdin and stdout (see `eraAwareTransport`). */
export async function serveStdio(opts: StdioOptions): Promise<StdioServer> {
  const server = createMcpServer(opts);
  let narrowed = false;
  void Promise.resolve(opts.surface).then(
    ({ filter }) => void (narrowed = filter.toolsets !== undefined || filter.readOnly === true),
    () => {},
  );
  await server.connect(eraAwareTransport(new StdioServerTransport(), { serverInfo: serverInfoOf(opts.version), narrowed: () => narrowed }));
  return server;
}
