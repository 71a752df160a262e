/** A local bare repository and a clone of it, for real pushes without GitHub. */
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tempDir } from './temp-dir.js'

export interface LocalRepo {
  bare: string
  work: string
  git(...args: string[]): string
  commit(file: string, content: string, message: string): string
}

const GIT_ENV = {
  GIT_AUTHOR_NAME: 'autoloop test',
  GIT_AUTHOR_EMAIL: 'test@autoloop.invalid',
  GIT_COMMITTER_NAME: 'autoloop test',
  GIT_COMMITTER_EMAIL: 'test@autoloop.invalid',
  GIT_CONFIG_NOSYSTEM: '1'
}

export function createLocalRepo(branch: string): LocalRepo {
  const root = tempDir('autoloop-git-')
  const bare = join(root, 'remote.git')
  const work = join(root, 'work')
  const run = (cwd: string, ...args: string[]) =>
    execFileSync('git', args, { cwd, env: { ...process.env, ...GIT_ENV }, encoding: 'utf8' }).trim()
  run(root, 'init', '-q', '--bare', '-b', 'main', bare)
  run(root, 'init', '-q', '-b', 'main', work)
  run(work, 'remote', 'add', 'origin', bare)
  const repo: LocalRepo = {
    bare,
    work,
    git: (...args) => run(work, ...args),
    commit(file, content, message) {
      writeFileSync(join(work, file), content)
      run(work, 'add', file)
      run(work, 'commit', '-q', '-m', message)
      return run(work, 'rev-parse', 'HEAD')
    }
  }
  repo.commit('README.md', 'base\n', 'base')
  run(work, 'push', '-q', 'origin', 'main')
  run(work, 'checkout', '-q', '-b', branch)
  return repo
}
