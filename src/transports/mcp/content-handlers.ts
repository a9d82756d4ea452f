import { CoreError } from '../../errors.js';
import type { McpContent } from '../../domain/platform/mcp-content.js';
import { RPC_ERROR } from './rpc-codes.js';

export class ContentError extends Error {
  constructor(
    readonly code: number,
    message: string,
    /** The error's `data` member: for a resource not found, the `uri` asked for (the spec's SHOULD). */
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** `resources/list`, `resources/read`, `prompts/list`, `prompts/get`, shared by both MCP transports. */
export function contentHandlers(content: McpContent) {
  return {
    async listResources() {
      const resources = await content.listResources();
      return { resources: resources.map(({ uri, name, title, description, mimeType }) => ({ uri, name, title, description, mimeType })) };
    },
    async readResource(uri: string) {
      try {
        const { text, mimeType } = await content.readResource(uri);
        return { contents: [{ uri, mimeType, text }] };
      } catch (err) {
        if (err instanceof CoreError && err.code === 'NOT_FOUND') throw new ContentError(RPC_ERROR.RESOURCE_NOT_FOUND, err.message, { uri });
        throw err;
      }
    },
    async listPrompts() {
      const prompts = await content.listPrompts();
      return { prompts: prompts.map(({ name, title, description, arguments: args }) => ({ name, title, description, arguments: args })) };
    },
    async getPrompt(name: string, args: Record<string, string>) {
      try {
        const { description, text } = await content.getPrompt(name, args);
        return { description, messages: [{ role: 'user' as const, content: { type: 'text' as const, text } }] };
      } catch (err) {
        if (err instanceof CoreError) throw new ContentError(RPC_ERROR.INVALID_PARAMS, err.message);
        throw err;
      }
    },
  };
}

export const CAPABILITIES = {
  tools: { listChanged: false },
  resources: { listChanged: false },
  prompts: { listChanged: false },
};
