// `node bench/out/registry.mjs`: the image-pull rows of the bench alone.
import { printRows, registryBench } from './registry.js';

printRows(await registryBench());
