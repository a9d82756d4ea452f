import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { errors } from '../../errors.js';
import { resourcePath } from '../../lib/paths.js';

/** A document an MCP client can list and read (`resources/list`, `resources/read`). */
export interface ResourceEntry {
  uri: string;
  name: string;
  title: string;
  description: string;
  mimeType: string;
  read(): Promise<string>;
}

export interface PromptArgument {
  name: string;
  description: string;
  required?: boolean;
}

/** A prompt template an MCP client can list and fetch (`prompts/list`, `prompts/get`). */
export interface PromptEntry {
  name: string;
  title: string;
  description: string;
  arguments: PromptArgument[];
  render(args: Record<string, string>): Promise<string>;
}

type Provider<T> = () => Promise<T[]> | T[];

/**
 * What the MCP surfaces offer besides tools. Areas add providers (operators, solvers, ...); files
 * under `resources/kernel/` and `resources/skills/` are offered as they appear.
 */
export interface McpContent {
  addResources(provider: Provider<ResourceEntry>): void;
  addPrompts(provider: Provider<PromptEntry>): void;
  listResources(): Promise<ResourceEntry[]>;
  readResource(uri: string): Promise<{ uri: string; mimeType: string; text: string }>;
  listPrompts(): Promise<PromptEntry[]>;
  getPrompt(name: string, args: Record<string, string>): Promise<{ description: string; text: string }>;
}

export function createMcpContent(): McpContent {
  const resourceProviders: Provider<ResourceEntry>[] = [skillResources, kernelResources];
  const promptProviders: Provider<PromptEntry>[] = [kernelPrompts];

  const listResources = async () => (await Promise.all(resourceProviders.map((p) => p()))).flat();
  const listPrompts = async () => (await Promise.all(promptProviders.map((p) => p()))).flat();

  return {
    addResources: (p) => void resourceProviders.push(p),
    addPrompts: (p) => void promptProviders.push(p),
    listResources,
    listPrompts,
    async readResource(uri) {
      const entry = (await listResources()).find((r) => r.uri === uri);
      if (!entry) throw errors.notFound(`No resource ${uri}; list them with resources/list`, { uri });
      return { uri, mimeType: entry.mimeType, text: await entry.read() };
    },
    async getPrompt(name, args) {
      const entry = (await listPrompts()).find((p) => p.name === name);
      if (!entry) throw errors.notFound(`No prompt ${name}; list them with prompts/list`, { name });
      const missing = entry.arguments.filter((a) => a.required && !(a.name in args)).map((a) => a.name);
      if (missing.length > 0) throw errors.validation(`Prompt ${name} needs: ${missing.join(', ')}`);
      return { description: entry.description, text: await entry.render(args) };
    },
  };
}

const KERNEL_PROMPT = resourcePath('kernel', 'prompt.md');

async function exists(file: string): Promise<boolean> {
  return readFile(file).then(
    () => true,
    () => false,
  );
}

async function kernelResources(): Promise<ResourceEntry[]> {
  if (!(await exists(KERNEL_PROMPT))) return [];
  return [
    {
      uri: 'core://kernel/prompt',
      name: 'kernel-prompt',
      title: 'Kernel prompt',
      description: 'How to use this service well: the rules an agent should follow, as text.',
      mimeType: 'text/markdown',
      read: () => readFile(KERNEL_PROMPT, 'utf8'),
    },
  ];
}

async function kernelPrompts(): Promise<PromptEntry[]> {
  if (!(await exists(KERNEL_PROMPT))) return [];
  return [
    {
      name: 'core_kernel',
      title: 'Use this service well',
      description: 'The kernel prompt: how an agent should use compute, chains and contracts on this server.',
      arguments: [],
      render: () => readFile(KERNEL_PROMPT, 'utf8'),
    },
  ];
}

/** Skills are Markdown files with `name` and `description` in their front matter. */
async function skillResources(): Promise<ResourceEntry[]> {
  const dir = resourcePath('skills');
  const files = await readdir(dir).catch(() => [] as string[]);
  const entries: ResourceEntry[] = [];
  for (const file of files.filter((f) => f.endsWith('.md')).sort()) {
    const full = path.join(dir, file);
    const text = await readFile(full, 'utf8');
    const front = /^---\n([\s\S]*?)\n---/.exec(text)?.[1] ?? '';
    const field = (key: string) =>
      new RegExp(`^${key}:\\s*(.+)$`, 'm')
        .exec(front)?.[1]
        ?.trim()
        .replace(/^["']|["']$/g, '');
    const name = field('name') ?? path.basename(file, '.md');
    entries.push({
      uri: `core://skills/${path.basename(file, '.md')}`,
      name: `skill-${path.basename(file, '.md')}`,
      title: name,
      description: field('description') ?? `Skill ${name}`,
      mimeType: 'text/markdown',
      read: () => readFile(full, 'utf8'),
    });
  }
  return entries;
}
