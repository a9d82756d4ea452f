import { randomUUID } from 'node:crypto';
import { CoreError, errors, toCoreError } from '../errors.js';
import { authenticate } from './authenticate.js';
import { hasRole } from '../domain/identity/roles.js';
const NEVER_ABORTED = new AbortController().signal;
export function createPipeline(deps) {
    const { services, log } = deps;
    const validate = (op, rawInput) => {
        const parsed = op.strictInput.safeParse(rawInput ?? {});
        return parsed.success ? undefined : validationError(op, parsed.error);
    };
    async function run(op, rawInput, caller, opts, requestId) {
        if (op.def.auth === 'bearer' && caller.uid === null)
            throw errors.unauthenticated();
        const parsed = op.strictInput.safeParse(rawInput ?? {});
        if (!parsed.success)
            throw validationError(op, parsed.error);
        const input = parsed.data;
        if (deps.readOnly && op.method !== 'GET') {
            throw errors.forbidden('This server runs read-only (CORE_READ_ONLY); only GET operations are allowed');
        }
        if (op.def.role)
            await authorize(op, input, caller);
        if (!op.def.handler)
            throw errors.notImplemented(op.def.area);
        const signal = opts.signal;
        let childLog;
        const ctx = {
            caller,
            requestId,
            services,
            get log() {
                return (childLog ??= log.child({ request_id: requestId, op: op.id }));
            },
            get signal() {
                return typeof signal === 'function' ? signal() : (signal ?? NEVER_ABORTED);
            },
            progress: opts.progress ?? (() => undefined),
        };
        const value = await op.def.handler(input, ctx);
        if (op.def.stream || op.def.produces)
            return value;
        const checked = op.def.output.safeParse(value);
        if (!checked.success) {
            throw new CoreError('INTERNAL', `output of ${op.id} does not match its schema`, undefined, {
                cause: checked.error.issues,
            });
        }
        return checked.data;
    }
    async function authorize(op, input, caller) {
        if (caller.uid === null)
            throw errors.unauthenticated();
        const slug = (input.slug ?? input.motherSlug);
        if (typeof slug !== 'string')
            throw new Error(`${op.id} declares a role but has no slug input`);
        const role = await services.machines.roleOf(slug, caller);
        if (role === undefined)
            throw errors.notFound(`No machine "${slug}"`, { slug });
        if (!hasRole(role, op.def.role)) {
            throw errors.forbidden(`This operation needs the ${op.def.role} role on "${slug}"; you have ${role}`);
        }
    }
    async function execute(op, caller, rawInput, opts) {
        const requestId = opts.requestId ?? randomUUID();
        const started = performance.now();
        try {
            const value = await run(op, rawInput, await caller(), opts, requestId);
            const ms = performance.now() - started;
            deps.observe?.(op, 200, ms, opts.surface);
            log.debug('operation done', { request_id: requestId, op: op.id, surface: opts.surface, ms: Math.round(ms * 100) / 100 });
            return { ok: true, value, requestId };
        }
        catch (err) {
            const error = toCoreError(err);
            deps.observe?.(op, error.status, performance.now() - started, opts.surface);
            if (error.code === 'INTERNAL') {
                log.error('operation failed', { request_id: requestId, op: op.id, surface: opts.surface, err, cause: error.cause });
            }
            else {
                log.info('operation refused', { request_id: requestId, op: op.id, surface: opts.surface, code: error.code, status: error.status });
            }
            return { ok: false, error, requestId };
        }
    }
    return {
        validate,
        invoke: (op, rawInput, creds, opts) => execute(op, () => authenticate(services, creds), rawInput, opts),
        invokeAs: (op, rawInput, caller, opts) => execute(op, async () => caller, rawInput, opts),
    };
}
function validationError(op, error) {
    const issues = error.issues.map((i) => ({
        path: i.path.map(String).join('.') || '(input)',
        message: i.message,
        code: i.code,
    }));
    const first = issues[0];
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
    return errors.validation(`Invalid input for ${op.id}: ${first.path}: ${first.message}${more}`, { issues });
}
//# sourceMappingURL=invoke.js.map