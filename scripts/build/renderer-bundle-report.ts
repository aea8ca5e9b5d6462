import type { Plugin } from 'vite';
import { gzipSync } from 'node:zlib';

/**
 * The marker every TypeBox schema carries (`Symbol.for('TypeBox.Kind')`): JavaScript holding it
 * holds TypeBox's code, which must stay out of the renderer (ESLint keeps its imports to types).
 */
export const TYPEBOX_MARKER = 'TypeBox.Kind';

/**
 * Prints the renderer bundle's JavaScript size (raw and gzipped) at the end of the build, and
 * fails the build if TypeBox reached it.
 */
export function rendererBundleReport(): Plugin {
  return {
    name: 'earmark-renderer-bundle-report',
    apply: 'build',
    generateBundle(_options, bundle) {
      let raw = 0;
      let gzipped = 0;
      for (const output of Object.values(bundle)) {
        if (output.type !== 'chunk') continue;
        if (output.code.includes(TYPEBOX_MARKER)) {
          this.error(
            `${output.fileName} holds TypeBox code: the renderer may import only types from the contract.`,
          );
        }
        raw += Buffer.byteLength(output.code);
        gzipped += gzipSync(output.code).length;
      }
      this.info(
        `renderer JavaScript: ${(raw / 1024).toFixed(1)} KiB (${(gzipped / 1024).toFixed(1)} KiB gzipped), no TypeBox`,
      );
    },
  };
}
