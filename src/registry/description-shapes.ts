import type { JsonSchema } from './json-schema.js';

// The API's description of itself as handlers return it; a leaf, so the handler context can name it.

/** One row of `GET /api/endpoints` and of `core_api_catalog`. */
export interface EndpointEntry {
  id: string;
  method: string;
  path: string;
  auth: string;
  role: string | null;
  summary: string;
  tool: string | null;
  action: string | null;
  toolset: string | null;
  area: string;
  tags: string[];
  stream: boolean;
  produces: string;
  available: boolean;
  input_schema?: JsonSchema;
}

export interface EndpointQuery {
  q?: string;
  tag?: string;
  method?: string;
  path?: string;
  include_schemas?: boolean;
}

/** What `core_api_catalog` answers to a call without arguments. */
export interface EndpointMap {
  ok: true;
  version: string;
  tools: number;
  operations: number;
  toolsets: Array<{ toolset: string; operations: number; tools: string[] }>;
  how_to_search: string[];
}

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  paths: Record<string, Record<string, unknown>>;
  [key: string]: unknown;
}
