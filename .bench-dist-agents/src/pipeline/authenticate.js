import { errors } from '../errors.js';
import { ANONYMOUS } from '../registry/types.js';
/** Parses an `Authorization` header value; anything but a well-formed bearer token yields undefined. */
export function bearerFrom(header) {
    if (!header)
        return undefined;
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return match ? match[1] : header.trim() === '' ? undefined : '';
}
/**
 * Resolves credentials to a caller. No credential gives the anonymous caller; a credential that is
 * present but unknown, revoked or expired is refused outright, whatever the operation.
 */
export async function authenticate(services, creds) {
    if (creds.bearer === undefined) {
        return creds.shareToken ? { ...ANONYMOUS, shareToken: creds.shareToken } : ANONYMOUS;
    }
    const caller = await services.identity.resolveKey(creds.bearer);
    if (!caller)
        throw errors.unauthenticated();
    return creds.shareToken ? { ...caller, shareToken: creds.shareToken } : caller;
}
//# sourceMappingURL=authenticate.js.map