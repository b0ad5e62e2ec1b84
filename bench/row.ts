/** One line of the benchmark table: opm's time against the floor measured in the same run. */
export interface Row {
  name: string;
  floorMs: number;
  opmMs: number;
  ratio: number;
  floorRssMB: number;
  opmRssMB: number;
  target: string;
  ok: boolean | undefined;
}
