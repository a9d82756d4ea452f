/**
 * Runs one third-party MCP client on Node 22, in a child process of the Node 20 test that forked it:
 * `node runner.mjs <client>` loads `./<client>.mjs` and answers the test's requests over the IPC channel
 * (newline-delimited JSON). The test keeps the story and every assertion; this process only connects the
 * client and calls tools through it, so what runs on Node 22 is exactly the client library's code.
 *
 * Requests: { id, op, params }. `connect` (params: the mcp.json target) answers { handle, toolNames };
 * `call` (handle, tool, args) answers { isError, data }; `close` (handle); any other op is a function the
 * client module exports under `ops`. Answers: { id, ok: true, result } or { id, ok: false, error }.
 */
const clientName = process.argv[2];
const client = await import(`./${clientName}.mjs`);

const agents = new Map();
let nextHandle = 1;

const handlers = {
  async connect(target) {
    const agent = await client.connect(target);
    const handle = nextHandle++;
    agents.set(handle, agent);
    return { handle, toolNames: agent.toolNames };
  },
  call({ handle, tool, args }) {
    return agentFor(handle).call(tool, args);
  },
  async close({ handle }) {
    const agent = agents.get(handle);
    agents.delete(handle);
    await agent?.close();
    return null;
  },
};

function agentFor(handle) {
  const agent = agents.get(handle);
  if (!agent) throw new Error(`no open connection ${handle} (closed, or its connect failed)`);
  return agent;
}

process.on('message', async ({ id, op, params }) => {
  try {
    const handler = handlers[op] ?? client.ops?.[op];
    if (!handler) throw new Error(`${clientName} runner has no operation '${op}'`);
    process.send({ id, ok: true, result: (await handler(params)) ?? null });
  } catch (err) {
    process.send({ id, ok: false, error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  }
});

// The test disconnects when it is done (or dies): close every client, so the stdio servers they started
// see their stdin end, then leave.
process.on('disconnect', async () => {
  await Promise.allSettled([...agents.values()].map((agent) => agent.close()));
  process.exit(0);
});

process.send({ ready: true, version: process.version });
