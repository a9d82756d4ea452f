import type { OperatorsService } from '../operators/operators.service.js';
import { createDraftGenerator, type Draft } from './draft-generator.service.js';
import { createTemplateCatalogue, type TemplateCatalogueService } from './template-catalogue.service.js';

/** The template catalogue (`templates`, `categories`, `templates/{id}`) and `generate`. */
export interface TemplatesService extends TemplateCatalogueService {
  /** Drafts a valid definition from a plain-language description, starting from the closest template; writes nothing. */
  generate(description: string): Draft;
}

export interface TemplatesDeps {
  operators: Pick<OperatorsService, 'exists' | 'get' | 'list'>;
  /** Folder of the template files; default `resources/templates`. */
  dir?: string;
}

export function createTemplatesService(deps: TemplatesDeps): TemplatesService {
  const catalogue = createTemplateCatalogue(deps.dir === undefined ? {} : { dir: deps.dir });
  const generator = createDraftGenerator({ catalogue, operators: deps.operators });
  return { ...catalogue, generate: (description) => generator.generate(description) };
}
