// `node bench/out/image.mjs`: the image build and push rows of the bench alone (OPM_REFERENCE names
// the reference opm).
import { imageBench } from './image.js';
import { printRows } from './registry.js';

printRows(await imageBench({ reference: process.env.OPM_REFERENCE }));
