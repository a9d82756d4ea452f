import { resourcePath } from '../../lib/paths.js';
import { MACHINES } from '../chain/machine.js';
import { createAgentAccess } from './agent-access.js';
import { createBlobStore } from './blob-store.js';
import { createDirectoryService } from './directory.service.js';
import { createFilesService } from './files.service.js';
import { createPlansService } from './plans.service.js';
import { createSkillsService } from './skills.service.js';
import { createStateService } from './state.service.js';
export function createAgentsService(deps) {
    const { store, clock, chain, machines } = deps;
    const blobs = createBlobStore({ store, clock });
    const state = createStateService({ store, clock });
    const loadMachine = (slug) => store.docs.get(MACHINES, slug);
    return {
        access: createAgentAccess({ machines }),
        plans: createPlansService({ store, clock, chain, state, blobs, loadMachine }),
        state,
        files: createFilesService({ store, clock, blobs }),
        skills: createSkillsService({ store, clock, blobs, dir: deps.skillsDir ?? resourcePath('skills') }),
        directory: createDirectoryService({ store }),
    };
}
//# sourceMappingURL=agents.service.js.map