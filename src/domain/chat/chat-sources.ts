import { existsSync, readFileSync } from 'node:fs';
import { resourcePath } from '../../lib/paths.js';
import { createTemplateCatalogue } from '../contracts/template-catalogue.js';
import type { OperatorsService } from '../operators/operators.service.js';
import type { ChatSources } from './chat-retrieval.js';

export interface ChatSourcesDeps {
  /** The API catalogue's entries; looked up at first use, once the registry is built. */
  endpoints: () => ReturnType<ChatSources['endpoints']>;
  operators: OperatorsService;
  /** Default `resources/templates/`; a missing folder means no templates. */
  templatesDir?: string;
  /** Default `resources/kernel/prompt.md`; a missing file means no kernel passages. */
  promptFile?: string;
}

/** What the local assistant retrieves from: the live catalogue, the operator registry, templates and the kernel prompt. */
export function createChatSources(deps: ChatSourcesDeps): ChatSources {
  const templates = createTemplateCatalogue(deps.templatesDir ?? resourcePath('templates'));
  const promptFile = deps.promptFile ?? resourcePath('kernel', 'prompt.md');
  let prompt: string | null | undefined;
  let endpoints: ReturnType<ChatSources['endpoints']> | undefined;
  let operators: { version: string; list: ReturnType<ChatSources['operators']> } | undefined;
  const summary = (o: { id: string; name: string; formula: string; category: string }) => ({
    id: o.id,
    name: o.name,
    formula: o.formula,
    category: o.category,
  });

  return {
    endpoints: () => (endpoints ??= deps.endpoints()),
    operators() {
      // The registry grows when an operator is promoted; its version says when to list it again.
      const version = deps.operators.registryVersion();
      if (operators?.version !== version) operators = { version, list: deps.operators.list({ limit: Number.MAX_SAFE_INTEGER }).operators.map(summary) };
      return operators.list;
    },
    operatorById: (id) => {
      const op = deps.operators.get(id);
      return op && summary(op);
    },
    templates: () => templates.all().map((t) => ({ id: t.id, title: t.title, category: t.category, description: t.description })),
    kernelPrompt() {
      if (prompt === undefined) prompt = existsSync(promptFile) ? readFileSync(promptFile, 'utf8') : null;
      return prompt ?? undefined;
    },
  };
}
