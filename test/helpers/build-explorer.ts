/** vitest globalSetup: builds the explorer page into dist/explorer/, which the app serves at `/`. */
import { buildExplorer } from '../../scripts/build-explorer.js';

export default async function setup(): Promise<void> {
  await buildExplorer();
}
