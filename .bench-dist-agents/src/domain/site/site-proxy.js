/** Row types written through a site are prefixed, so they stand apart from the owner's own rows. */
export const SITE_ROW_PREFIX = 'site.';
const SITE_WRITES = {
    'chain.appendEvent': (input) => ({
        ...input,
        type: `${SITE_ROW_PREFIX}${typeof input.type === 'string' ? input.type : 'event'}`.slice(0, 64),
    }),
};
export function proxyRuleOf(def) {
    if (!def.path.includes('{slug}')) {
        return { kind: 'refused', reason: `${def.id} is not scoped to one machine; a site may call only operations on its own machine` };
    }
    const write = SITE_WRITES[def.id];
    if (write)
        return { kind: 'write', prepare: write };
    if (def.method === 'GET' && def.auth === 'public' && def.role === undefined)
        return { kind: 'read' };
    return {
        kind: 'refused',
        reason: `${def.id} is not exposed to site pages: they may call public reads of their machine and ${Object.keys(SITE_WRITES).join(', ')}`,
    };
}
//# sourceMappingURL=site-proxy.js.map