export function sourceFiles(root: string): string[]
export function importGraph(files: string[], read?: (file: string) => string): Map<string, string[]>
export function importCycles(graph: Map<string, string[]>): string[][]
