// The built preload (npm run build → out/preload/index.cjs), run as Electron runs a sandboxed
// preload: compiled as the body of a function of (require, process, exports, module, Buffer,
// global, setImmediate, clearImmediate) in a context of its own, where `require` knows only
// `electron`, `events`, `timers` and `url` and throws "module not found" for anything else
// (Electron's lib/sandboxed_renderer). Electron's runtime cannot run here; its contextBridge and
// ipcRenderer are a fake that records what the preload does with them.
import { EventEmitter } from 'node:events';
import * as events from 'node:events';
import { readFileSync } from 'node:fs';
import * as timers from 'node:timers';
import * as url from 'node:url';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import {
  CHANNEL_NAMES,
  ELECTRON_EVENT_CHANNEL,
  ELECTRON_INVOKE_CHANNEL,
  EVENT_NAMES,
  type EarmarkApi,
} from '../../src/shared/ipc';

const PRELOAD = fileURLToPath(new URL('../../out/preload/index.cjs', import.meta.url));
/** What a sandboxed preload can require (Electron's docs, "Process Sandboxing"). */
const SANDBOX_MODULES = ['electron', 'events', 'timers', 'url'];

type Listener = (event: unknown, ...args: unknown[]) => void;

/** Runs the built preload in a sandboxed preload's shape; what it exposed and asked for. */
function loadSandboxedPreload() {
  const mainWorld: Record<string, unknown> = {};
  const invoked: unknown[][] = [];
  const ipcListeners = new Map<string, Listener[]>();
  const electron = {
    contextBridge: {
      exposeInMainWorld: (key: string, api: unknown) => (mainWorld[key] = api),
    },
    ipcRenderer: {
      invoke: (...args: unknown[]) => {
        invoked.push(args);
        return Promise.resolve({ ok: true, value: 'from main' });
      },
      on: (channel: string, listener: Listener) => {
        ipcListeners.set(channel, [...(ipcListeners.get(channel) ?? []), listener]);
      },
    },
  };
  const modules = new Map<string, unknown>([
    ['electron', electron],
    ['events', events],
    ['timers', timers],
    ['url', url],
  ]);
  const required: string[] = [];
  const preloadRequire = (name: string) => {
    required.push(name);
    if (!modules.has(name)) throw new Error(`module not found: ${name}`);
    return modules.get(name);
  };
  const isolatedWorld = vm.createContext({});
  const body = vm.compileFunction(
    readFileSync(PRELOAD, 'utf8'),
    [
      'require',
      'process',
      'exports',
      'module',
      'Buffer',
      'global',
      'setImmediate',
      'clearImmediate',
    ],
    { parsingContext: isolatedWorld, filename: PRELOAD },
  );
  const exports = {};
  body(
    preloadRequire,
    new EventEmitter(),
    exports,
    { exports },
    Buffer,
    vm.runInContext('globalThis', isolatedWorld),
    setImmediate,
    clearImmediate,
  );
  const send = (message: unknown) => {
    for (const listener of ipcListeners.get(ELECTRON_EVENT_CHANNEL) ?? [])
      listener({ sender: 'ipcRenderer' }, message);
  };
  return { mainWorld, invoked, ipcListeners, required, send };
}

describe('the built preload in a sandboxed renderer', () => {
  it('loads, requiring only what the sandbox provides, and exposes window.earmark', () => {
    const preload = loadSandboxedPreload();
    expect(preload.required.filter((name) => !SANDBOX_MODULES.includes(name))).toEqual([]);
    expect(Object.keys(preload.mainWorld)).toEqual(['earmark']);
    expect(Object.keys(preload.mainWorld.earmark as object).sort()).toEqual(['invoke', 'on']);
  });

  it('carries every channel of the contract to main, on the one invoke channel', async () => {
    const { mainWorld, invoked } = loadSandboxedPreload();
    const earmark = mainWorld.earmark as EarmarkApi;
    const invoke = earmark.invoke as (channel: string, input: unknown) => Promise<unknown>;
    expect(CHANNEL_NAMES.length).toBeGreaterThan(50);
    for (const channel of CHANNEL_NAMES) {
      await expect(invoke(channel, { probe: channel })).resolves.toEqual({
        ok: true,
        value: 'from main',
      });
    }
    expect(invoked).toEqual(
      CHANNEL_NAMES.map((channel) => [ELECTRON_INVOKE_CHANNEL, channel, { probe: channel }]),
    );
  });

  it('delivers every event to its listeners, only them, until they unsubscribe', () => {
    const { mainWorld, ipcListeners, send } = loadSandboxedPreload();
    const earmark = mainWorld.earmark as EarmarkApi;
    expect([...ipcListeners.keys()]).toEqual([ELECTRON_EVENT_CHANNEL]);
    const received: [string, unknown][] = [];
    const stops = EVENT_NAMES.map((event) =>
      earmark.on(event, (payload) => received.push([event, payload])),
    );
    for (const event of EVENT_NAMES) send({ event, payload: { about: event } });
    expect(received).toEqual(EVENT_NAMES.map((event) => [event, { about: event }]));

    stops.forEach((stop) => stop());
    for (const event of EVENT_NAMES) send({ event, payload: 'after' });
    expect(received).toHaveLength(EVENT_NAMES.length);
    expect(() => earmark.on('not.an.event' as never, () => undefined)).toThrow(
      'Unknown event not.an.event',
    );
  });
});

describe('the preload bundle (npm run build)', () => {
  it('requires nothing but electron: whatever else it needs is bundled into it', () => {
    const source = readFileSync(PRELOAD, 'utf8');
    const file = ts.createSourceFile(PRELOAD, source, ts.ScriptTarget.Latest, false);
    const loads: string[] = [];
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression)) {
        if (node.expression.text === 'require') {
          const [name] = node.arguments;
          loads.push(name && ts.isStringLiteral(name) ? name.text : `<${node.getText(file)}>`);
        }
      }
      if (ts.isImportDeclaration(node) || node.kind === ts.SyntaxKind.ImportKeyword)
        loads.push(`<import: ${node.getText(file)}>`);
      ts.forEachChild(node, visit);
    };
    visit(file);
    expect(loads).toEqual(['electron']);
  });
});
