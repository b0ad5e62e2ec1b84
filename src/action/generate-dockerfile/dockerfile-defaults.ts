// Apart from the action so that the command line can show it in `--help` without loading the
// validator that the action runs before writing.
export const DEFAULT_OPM_IMAGE = 'quay.io/operator-framework/opm:latest';
