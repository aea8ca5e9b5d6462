import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import {
  chromium,
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  type Page,
} from 'playwright-core';
import WebSocket from 'ws';
import { openServiceDatabase } from '../../src/service/db/database';
import { LabelStore } from '../../src/service/db/label-store';
import type { DemoCredentials } from '../../src/service/demo/identity-seed';
import { EventLog } from '../../src/service/events/event-log';
import { regenerateNote as regenerate } from '../../src/service/sandbox/regenerate';
import { sandboxNotesPath } from '../../src/shared/api';
import { findChromium } from '../../src/main/web/chromium';
import { SHELL_RPC_PROTOCOL, SHELL_TOKEN_PROTOCOL_PREFIX } from '../../src/shared/ipc';
import { addDays, dateKey, localDate, type LocalDate } from '../../src/shared/timeline';
import type { SyncStatus } from '../../src/shared/ipc';
import { launch, type Launched } from '../service/child-process';
import { sleep, until } from '../service/poll';
import { demoService, type DemoService } from './demo-service';

/**
 * The system's Chromium (CHROMIUM_PATH, else the first on PATH: Debian's package, Ubuntu's snap…),
 * driven by Playwright — never a Playwright browser download. `npm test` stops before the tests
 * when there is none (scripts/test-prerequisites.ts).
 */
export const CHROMIUM_PATH = findChromium() ?? '/usr/bin/chromium';

export const chromiumProblem = (): string | undefined =>
  existsSync(CHROMIUM_PATH)
    ? undefined
    : `no Chromium (CHROMIUM_PATH, or chromium on PATH): npm test prints the command that installs it`;

/**
 * Chromium's headless mode is the whole browser, its own interface included: with each new page
 * it starts the omnibox's two popups (chrome://omnibox-popup.top-chrome/, and its AI Mode one)
 * in a renderer of their own, about 1.4 s of CPU per page on a 2-core machine, beside the app's
 * page. Neither the app's Electron window nor Playwright's headless shell has an address bar:
 * without them the tests and benchmarks run the app's page alone, as it runs. (The benchmark of
 * the first open of the day measured it: a median of 1,187 ms with them, 631 ms without.)
 */
const BROWSER_UI_FEATURES = ['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup'];

/**
 * The features Playwright turns off as it starts Chromium (its own `--disable-features`, before
 * ours on the command line). Chromium keeps only the last `--disable-features` it is given, so
 * ours names them again; support.test.ts fails, naming any left out, when Playwright's list
 * changes.
 */
const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
];

/** How the tests and benchmarks start Chromium. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...BROWSER_UI_FEATURES].join(',')}`,
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}

export interface ShellProcess {
  url: string;
  child: ChildProcess;
  stderr: () => string;
  stop(): Promise<void>;
}

/**
 * Starts `npm run web` (the browser shell) and waits for its first line: {"url": ...}. With
 * `open`, the shell starts its browser window itself (CHROMIUM_PATH in `env` says which).
 */
export function startShellProcess(
  args: string[],
  { open = false, env = process.env }: { open?: boolean; env?: NodeJS.ProcessEnv } = {},
): Promise<ShellProcess> {
  // Node itself, with tsx as a loader (not tsx's own process in between): signals sent to
  // `child` reach the shell, as a terminal's reach every process of its group.
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/main/web/cli.ts',
      '--port',
      '0',
      ...(open ? [] : ['--no-open']),
      ...args,
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env,
    },
  );
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const stop = () =>
    new Promise<void>((resolve) => {
      // Exited, or ended by a signal (exitCode stays null then).
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => {
      try {
        resolve({
          url: (JSON.parse(line) as { url: string }).url,
          child,
          stderr: () => stderr,
          stop,
        });
      } catch {
        reject(new Error(`The browser shell printed ${line}\n${stderr}`));
      }
    });
    child.once('exit', (code) =>
      reject(new Error(`The browser shell exited with ${code}:\n${stderr}`)),
    );
  });
}

/**
 * Calls the app's IPC over the browser shell's WebSocket, as the renderer does: the token of the
 * shell's address offered as a subprotocol, from the page's origin. Events main pushes on the
 * same socket are skipped: the answer is the message carrying this call's id.
 */
export async function invokeOverShell<T>(
  shellUrl: string,
  channel: string,
  input: unknown,
): Promise<T> {
  const { origin, searchParams } = new URL(shellUrl);
  const ws = new WebSocket(
    `${origin.replace('http', 'ws')}/rpc`,
    [SHELL_RPC_PROTOCOL, `${SHELL_TOKEN_PROTOCOL_PREFIX}${searchParams.get('token')}`],
    { headers: { origin } },
  );
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const id = 1;
  const answer = new Promise<{ ok: boolean; value?: unknown; error?: unknown }>((resolve) => {
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as {
        id?: number;
        result?: { ok: boolean; value?: unknown };
      };
      if (message.id === id && message.result) resolve(message.result);
    });
  });
  ws.send(JSON.stringify({ id, channel, input }));
  const result = await answer;
  ws.close();
  if (!result.ok) throw new Error(`${channel} failed: ${JSON.stringify(result)}`);
  return result.value as T;
}

export interface DemoServiceProcess {
  service: Launched;
  baseUrl: string;
  credentials: DemoCredentials;
}

/**
 * The demo clinic as its own service process (`npm run service -- --seed demo`), so that a test
 * can stop it and see the app offline; answers once it listens, with its address and keys.
 */
export async function launchDemoService(
  serviceDir: string,
  /** More flags of `npm run service` (e.g. --hide-conversation-ranges). */
  flags: string[] = [],
): Promise<DemoServiceProcess> {
  const service = launch('src/service/cli.ts', [
    '--port',
    '0',
    '--data',
    serviceDir,
    '--seed',
    'demo',
    // The sandbox's webhook policy, as `npm run demo-service` has it.
    '--allow-local-webhooks',
    ...flags,
  ]);
  const banner = JSON.parse((await service.waitFor('stdout', /^\{.*\}$/m, 60_000))[0]) as {
    baseUrl: string;
    credentials: DemoCredentials;
  };
  return { service, ...banner };
}

/** The app in Chromium through the browser shell, on a fresh data folder. */
export interface AppInChromium {
  dataDir: string;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  shell: ShellProcess;
  /** Calls the app's IPC as the renderer does. */
  invoke<T>(channel: string, input: unknown): Promise<T>;
}

interface AppInChromiumOptions {
  /** Arguments of `npm run web` besides the data folder. */
  shellArgs?: string[];
  context?: BrowserContextOptions;
  /** Playwright's default wait for the page's locators (its own default otherwise). */
  defaultTimeoutMs?: number;
}

/** Starts the browser shell on a new data folder named after the suite, and Chromium on it. */
export async function openAppInChromium(
  name: string,
  { shellArgs = [], context: contextOptions = {}, defaultTimeoutMs }: AppInChromiumOptions,
): Promise<AppInChromium> {
  const dataDir = mkdtempSync(join(tmpdir(), `earmark-e2e-${name}-`));
  const browser = await launchChromium();
  const shell = await startShellProcess(['--data', dataDir, ...shellArgs]);
  const context = await browser.newContext({
    viewport: { width: 1280, height: 800 },
    ...contextOptions,
  });
  const page = await context.newPage();
  if (defaultTimeoutMs !== undefined) page.setDefaultTimeout(defaultTimeoutMs);
  await page.goto(shell.url);
  const invoke = <T>(channel: string, input: unknown) =>
    invokeOverShell<T>(shell.url, channel, input);
  return { dataDir, browser, context, page, shell, invoke };
}

const firstScreen = (page: Page) =>
  page.getByRole('heading', { name: 'Hub timeline' }).waitFor({ timeout: 60_000 });

/** The app with the demo clinic it embeds (`npm run web -- --demo`), as `npm start` opens it. */
export interface AppOnEmbeddedDemo extends AppInChromium {
  /** The embedded clinic, reached directly by the test. */
  demo: DemoService;
  /** Closes the browser, stops the shell and removes its data folder. */
  close(): Promise<void>;
}

/** A record's time as the service sent it: ISO (the seed) or epoch ms (the field dialect). */
export const msOf = (time: string | number): number =>
  typeof time === 'number' ? time : Date.parse(time);

/** The service's two ways of behaving (docs/reference-service.md, "Dialects"). */
export const DIALECTS = ['seed', 'field'] as const;
export type Dialect = (typeof DIALECTS)[number];

/** Opens the app on its embedded demo clinic (in the seed's dialect unless told) and waits for the first screen. */
export async function openAppOnEmbeddedDemo(
  name: string,
  {
    dialect = 'seed',
    ...options
  }: Omit<AppInChromiumOptions, 'shellArgs'> & { dialect?: Dialect } = {},
): Promise<AppOnEmbeddedDemo> {
  const app = await openAppInChromium(name, {
    ...options,
    shellArgs: ['--demo', '--demo-dialect', dialect],
  });
  await firstScreen(app.page);
  return {
    ...app,
    demo: demoService(app.dataDir),
    async close() {
      await app.browser.close();
      await app.shell.stop();
      rmSync(app.dataDir, { recursive: true, force: true });
    },
  };
}

/** The app in Chromium (browser shell) with an account on a demo clinic of its own. */
export interface AppOnDemoService extends DemoServiceProcess, AppInChromium {
  /** The service's data folder (its SQLite database). */
  serviceDir: string;
  /** A request to the service itself, with the primary key. */
  serviceFetch(path: string, headers?: Record<string, string>): Promise<Response>;
  /** Closes the browser, stops the shell and the service, and removes their folders. */
  close(): Promise<void>;
}

/**
 * Starts a demo clinic as its own process (so a test can stop it and see the app offline), the
 * browser shell on a fresh data folder, and Chromium; adds the clinic's primary key (for this
 * session only) and waits for the first screen.
 */
export async function openAppOnDemoService(
  name: string,
  contextOptions: BrowserContextOptions = {},
  serviceFlags: string[] = [],
): Promise<AppOnDemoService> {
  const serviceDir = mkdtempSync(join(tmpdir(), `earmark-e2e-${name}-service-`));
  const demo = await launchDemoService(serviceDir, serviceFlags);
  const app = await openAppInChromium(name, { context: contextOptions, defaultTimeoutMs: 20_000 });
  await app.invoke('accounts.add', {
    baseUrl: demo.baseUrl,
    apiKey: demo.credentials.primary.apiKey,
    sessionOnly: true,
  });
  await firstScreen(app.page);
  return {
    ...demo,
    ...app,
    serviceDir,
    serviceFetch: (path, headers = {}) =>
      fetch(`${demo.baseUrl}${path}`, {
        headers: { authorization: `Bearer ${demo.credentials.primary.apiKey}`, ...headers },
      }),
    async close() {
      await app.browser.close();
      await app.shell.stop();
      await demo.service.kill();
      rmSync(app.dataDir, { recursive: true, force: true });
      rmSync(serviceDir, { recursive: true, force: true });
    },
  };
}

/** Waits for the app's first completed sync (what reads only the cache needs: search, patients). */
export async function firstSync(invoke: <T>(channel: string, input: unknown) => Promise<T>) {
  await until(
    async () => {
      await sleep(250);
      return (await invoke<SyncStatus>('sync.status', {})).lastSyncAt;
    },
    (lastSyncAt) => lastSyncAt !== null,
    60_000,
  );
}

/**
 * The latest weekday before today (the machine's zone, the app's clinic zone): a full day of the
 * demo clinic whatever day the tests run on (its weekends are quiet).
 */
export function busyDay(): LocalDate {
  let day = addDays(localDate(Date.now()), -1);
  const weekday = (d: LocalDate) => new Date(Date.UTC(d.year, d.month - 1, d.day)).getUTCDay();
  while (weekday(day) === 0 || weekday(day) === 6) day = addDays(day, -1);
  return day;
}

/** Shows a day on the hub timeline, through its date field, as a user picks one. */
export async function showDay(page: Page, date: LocalDate): Promise<void> {
  const field = page.getByLabel('Date', { exact: true });
  await field.fill(dateKey(date));
  await field.dispatchEvent('change');
}

/**
 * A new version of a record's note, as the service makes when it reprocesses one (a revision of
 * the current note without `content`): the sandbox control in the seed dialect. The field dialect
 * has none, as the real service has none, so there the same regeneration goes into the service's
 * database from outside its process (SQLite's WAL lets it), its label_updated logged too.
 */
export async function regenerateNote(
  app: AppOnDemoService,
  dialect: Dialect,
  labelId: string,
  type: string,
  content?: string,
): Promise<void> {
  if (dialect === 'seed') {
    const response = await fetch(`${app.baseUrl}${sandboxNotesPath(labelId)}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${app.credentials.primary.apiKey}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ type, content }),
    });
    if (response.status !== 200) throw new Error(`regenerate: ${response.status}`);
    return;
  }
  const db = openServiceDatabase(app.serviceDir);
  try {
    regenerate(
      { db, labels: new LabelStore(db), events: new EventLog(db, Date.now), now: Date.now },
      labelId,
      type,
      content,
    );
  } finally {
    db.close();
  }
}
