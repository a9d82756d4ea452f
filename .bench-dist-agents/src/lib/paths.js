import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
/** The package root (the folder holding package.json), from source or from `dist/`. */
export function packageRoot() {
    let dir = path.dirname(fileURLToPath(import.meta.url));
    while (!existsSync(path.join(dir, 'package.json'))) {
        const parent = path.dirname(dir);
        if (parent === dir)
            throw new Error('package.json not found above ' + fileURLToPath(import.meta.url));
        dir = parent;
    }
    return dir;
}
export function resourcePath(...parts) {
    return path.join(packageRoot(), 'resources', ...parts);
}
//# sourceMappingURL=paths.js.map