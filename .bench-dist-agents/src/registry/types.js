export const TOOLSETS = ['platform', 'compute', 'machines', 'contracts', 'agents', 'economy', 'edge'];
export const ANONYMOUS = Object.freeze({ uid: null, credential: 'none' });
/** Declares an action with its handler typed from its schemas. */
export function defineAction(def) {
    return def;
}
export function defineTool(def) {
    return def;
}
//# sourceMappingURL=types.js.map