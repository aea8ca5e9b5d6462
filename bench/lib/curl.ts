import { execFile } from 'node:child_process';

/**
 * curl fetching a URL, timed by curl itself (time_total: its process start not counted).
 * Asynchronous: a link proxy in the benchmark's own process (test/support/shaped-link.ts) must go on
 * forwarding while curl runs.
 */
export function curl(options: {
  url: string;
  apiKey: string;
  /** Where the body goes; /dev/null by default. */
  output?: string;
  /** Bytes [start, end] only. */
  range?: { start: number; end: number };
}): Promise<{ ms: number; bytes: number }> {
  const args = ['-sS', '-f', '-o', options.output ?? '/dev/null'];
  args.push('-H', `Authorization: Bearer ${options.apiKey}`);
  if (options.range) args.push('-r', `${options.range.start}-${options.range.end}`);
  args.push('-w', '%{time_total} %{size_download}', options.url);
  return new Promise((resolve, reject) => {
    execFile('curl', args, { encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`curl failed: ${stderr || error.message}`));
      const [seconds = '0', size = '0'] = stdout.trim().split(' ');
      resolve({ ms: Number(seconds) * 1000, bytes: Number(size) });
    });
  });
}
