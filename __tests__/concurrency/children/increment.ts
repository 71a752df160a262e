/**
 * Child process of local-dir-store.test.ts: adds 1 to the counter in `<dir>/<program>.md`
 * `times` times through `updateFile`, as an independent writer of the same folder.
 * Usage: node --import tsx increment.ts <dir> <program> <times>
 */
import { systemClock } from '../../../src/adapters/clock.js'
import { updateFile } from '../../../src/app/update-file.js'
import { LocalDirStore } from '../../../src/adapters/store.js'

const [dir, program, times] = process.argv.slice(2)
if (!dir || !program || !times) throw new Error('usage: increment.ts <dir> <program> <times>')
const store = new LocalDirStore(dir)
for (let i = 0; i < Number(times); i++) {
  await updateFile(
    store,
    `${program}.md`,
    (text) => {
      const count = Number(/count: (\d+)/.exec(text ?? '')?.[1] ?? '0')
      return `count: ${count + 1}\n`
    },
    // Jitter in real time: these are real processes racing for one file.
    { clock: systemClock, maxAttempts: 50 }
  )
}
