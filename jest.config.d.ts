import type { Config } from 'jest'

export const TYPE_ONLY_MODULES: string[]
declare const config: Config
export default config
