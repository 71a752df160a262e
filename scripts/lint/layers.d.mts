import type { ESLint } from 'eslint'

export const ALLOWED: Record<string, string[]>
export function layerOf(path: string): string | null
declare const plugin: ESLint.Plugin
export default plugin
