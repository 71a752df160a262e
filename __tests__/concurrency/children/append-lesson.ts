/**
 * Child process of concurrent-writers.test.ts: another job editing `<dir>/<program>.md` at the
 * same time as the gate, as an agent's job sharing the folder would: lines added under
 * `## 📚 Lessons Learned` through `updateFile`, each a compare-and-swap write, one every
 * 40–160 ms of real time (a job edits a file at that pace at most), until its stdin closes.
 * Prints `ready` after the first write, so the test starts the gates while this process
 * writes, and `wrote <n>` at the end.
 * Usage: node --import tsx append-lesson.ts <dir> <program>
 */
import { systemClock } from '../../../src/adapters/clock.js'
import { updateFile } from '../../../src/app/update-file.js'
import { LocalDirStore } from '../../../src/adapters/store.js'

const [dir, program] = process.argv.slice(2)
if (!dir || !program) throw new Error('usage: append-lesson.ts <dir> <program>')
const HEADING = '## 📚 Lessons Learned\n'
const store = new LocalDirStore(dir)
let stopped = false
process.stdin.on('end', () => (stopped = true)).resume()
let wrote = 0
while (!stopped) {
  await updateFile(
    store,
    `${program}.md`,
    (text) => {
      const at = (text ?? '').indexOf(HEADING)
      if (text === null || at < 0) throw new Error(`no "${HEADING.trim()}" in ${program}.md`)
      const end = at + HEADING.length
      return `${text.slice(0, end)}\n- lesson ${process.pid}-${wrote} from another job${text.slice(end)}`
    },
    // Jitter in real time: this is a real process racing the gate for one file.
    { clock: systemClock, maxAttempts: 50 }
  )
  wrote += 1
  if (wrote === 1) process.stdout.write('ready\n')
  await systemClock.sleep(40 + Math.random() * 120)
}
process.stdout.write(`wrote ${wrote}\n`)
