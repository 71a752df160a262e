// Each jest project's time limit per test (jest.config.js: `globals.testTimeoutMs`): jest
// reads `testTimeout` from the global config only, so one limit per layer is set here.
import { jest } from '@jest/globals'

const ms = (globalThis as { testTimeoutMs?: unknown }).testTimeoutMs
if (typeof ms === 'number') jest.setTimeout(ms)
