/**
 * Child process of concurrent-writers.test.ts: another job editing `<dir>/<program>.md` at the
 * same time as the gate, as an agent's job sharing the folder would: `times` lines added under
 * `## 📚 Lessons Learned` through `updateFile`, each a compare-and-swap write. Prints `ready`
 * after the first write, so the test starts the gates while this process writes.
 * Usage: node --import tsx append-lesson.ts <dir> <program> <times>
 */
import { systemClock } from '../../../src/clock.js'
import { LocalDirStore, updateFile } from '../../../src/state/store.js'

const [dir, program, times] = process.argv.slice(2)
if (!dir || !program || !times) throw new Error('usage: append-lesson.ts <dir> <program> <times>')
const HEADING = '## 📚 Lessons Learned\n'
const store = new LocalDirStore(dir)
for (let i = 0; i < Number(times); i++) {
  await updateFile(
    store,
    `${program}.md`,
    (text) => {
      const at = (text ?? '').indexOf(HEADING)
      if (text === null || at < 0) throw new Error(`no "${HEADING.trim()}" in ${program}.md`)
      const end = at + HEADING.length
      return `${text.slice(0, end)}\n- lesson ${process.pid}-${i} from another job${text.slice(end)}`
    },
    // Jitter in real time: this is a real process racing the gate for one file.
    { clock: systemClock, maxAttempts: 50 }
  )
  if (i === 0) process.stdout.write('ready\n')
  await new Promise((resolve) => setImmediate(resolve))
}
process.stdout.write('done\n')
