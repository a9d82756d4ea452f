import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { node22Binary } from '../../helpers/node22.js';
import type { AgentClient, ClientUnderTest, ToolOutcome } from './agent-story.js';

/**
 * A client that declares Node >= 22 runs in a child process on the pinned Node 22 (`node22/runner.mjs`),
 * while the test, the story's assertions and our server stay on Node 20. The stdio entry the test hands
 * over names the Node 20 `process.execPath`, so a client started over stdio starts our server on Node 20 too.
 */
export interface Node22Runner {
  /** `process.version` as the child reported it. */
  nodeVersion: string;
  /** `ClientUnderTest.connect` for the agent story: every connect, call and close is a request to the child. */
  connect: ClientUnderTest['connect'];
  /** An operation the client's module exports beyond connect/call/close. */
  request<T>(op: string, params: unknown): Promise<T>;
  stop(): Promise<void>;
}

type Answer = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: string };

const runnerPath = fileURLToPath(new URL('./node22/runner.mjs', import.meta.url));

export async function startNode22Runner(client: 'ai-sdk' | 'mastra'): Promise<Node22Runner> {
  const execPath = await node22Binary();
  const { NODE_OPTIONS: _ignored, ...env } = process.env;
  const child: ChildProcess = fork(runnerPath, [client], { execPath, execArgv: [], env, silent: true, serialization: 'json' });

  // The child's own output (client libraries log there) is kept for failure messages, not shown.
  let output = '';
  const keep = (chunk: Buffer) => void (output = (output + chunk.toString()).slice(-4000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const died = () => new Error(`the ${client} runner on Node 22 exited (code ${child.exitCode}, signal ${child.signalCode}); its output:\n${output}`);

  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (err: Error) => void }>();
  let nextId = 1;
  let ready: (version: string) => void;
  let failed: (err: Error) => void;
  const started = new Promise<string>((resolve, reject) => ((ready = resolve), (failed = reject)));
  child.on('message', (message: Answer | { ready: true; version: string }) => {
    if ('ready' in message) return ready(message.version);
    const waiter = pending.get(message.id);
    pending.delete(message.id);
    if (message.ok) waiter?.resolve(message.result);
    else waiter?.reject(new Error(`${client} on Node 22: ${message.error}`));
  });
  const exited = new Promise<void>((resolve) =>
    child.on('exit', () => {
      failed(died());
      for (const waiter of pending.values()) waiter.reject(died());
      pending.clear();
      resolve();
    }),
  );

  const request = <T>(op: string, params: unknown): Promise<T> => {
    if (!child.connected) return Promise.reject(died());
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      child.send({ id, op, params });
    });
  };

  const nodeVersion = await started;
  return {
    nodeVersion,
    request,
    async connect(target): Promise<AgentClient> {
      const { handle, toolNames } = await request<{ handle: number; toolNames: string[] }>('connect', target);
      return {
        toolNames,
        call: (tool, args) => request<ToolOutcome>('call', { handle, tool, args }),
        close: async () => {
          if (child.connected) await request('close', { handle });
        },
      };
    },
    async stop() {
      // Disconnecting asks the runner to close its clients and leave; a runner that hangs is killed.
      if (child.connected) child.disconnect();
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
