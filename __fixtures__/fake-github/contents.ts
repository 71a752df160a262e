/**
 * Routes served from the fake's git repository: the contents API (files, directory listings,
 * compare-and-swap writes that become real commits), trees and commits.
 */
import { RefMovedError } from './contents-store.js'
import {
  apiBase,
  commitJson,
  errorReply,
  gitCommitJson,
  htmlBase,
  notFound,
  record,
  str,
  type Handler,
  type HandlerContext
} from './shapes.js'

function contentsFile(
  ctx: HandlerContext,
  path: string,
  ref: string,
  sha: string,
  content: Buffer | undefined,
  size: number
) {
  const name = path.split('/').pop() ?? path
  const base = `${apiBase(ctx)}/contents/${path}?ref=${encodeURIComponent(ref)}`
  return {
    type: 'file',
    ...(content === undefined
      ? {}
      : {
          encoding: 'base64',
          content: (content.toString('base64').match(/.{1,60}/g) ?? []).join('\n') + '\n'
        }),
    size,
    name,
    path,
    sha,
    url: base,
    git_url: `${apiBase(ctx)}/git/blobs/${sha}`,
    html_url: `${htmlBase(ctx)}/blob/${ref}/${path}`,
    download_url: `${ctx.origin}/_fake/raw/${sha}`,
    _links: {
      self: base,
      git: `${apiBase(ctx)}/git/blobs/${sha}`,
      html: `${htmlBase(ctx)}/blob/${ref}/${path}`
    }
  }
}

function contentsDirEntry(
  ctx: HandlerContext,
  path: string,
  ref: string,
  type: 'file' | 'dir',
  sha: string,
  size: number
) {
  const entry = contentsFile(ctx, path, ref, sha, undefined, size)
  return { ...entry, type, ...(type === 'dir' ? { download_url: null } : {}) }
}

function cleanPath(path: string | undefined): string {
  return (path ?? '').replace(/^\/+|\/+$/g, '')
}

export const contentRoutes: Record<string, Handler> = {
  'GET /repos/{owner}/{repo}/contents/{path}': (ctx) => {
    const path = cleanPath(ctx.params.path)
    const ref = ctx.query.get('ref') ?? ctx.model.state.defaultBranch
    const sha = ctx.model.resolveRef(ref)
    if (!sha) return errorReply(404, `No commit found for the ref ${ref}`)
    const entry = ctx.model.gitCommit(sha) ? ctx.model.repo().path(sha, path) : undefined
    if (!entry) return notFound()
    if (entry.type === 'file') {
      return {
        status: 200,
        body: contentsFile(ctx, path, ref, entry.sha, entry.content, entry.content.length)
      }
    }
    const prefix = path === '' ? '' : `${path}/`
    return {
      status: 200,
      body: entry.entries
        .filter((e) => e.type !== 'commit')
        .map((e) =>
          contentsDirEntry(
            ctx,
            `${prefix}${e.path}`,
            ref,
            e.type === 'tree' ? 'dir' : 'file',
            e.sha,
            e.size ?? 0
          )
        )
    }
  },

  'PUT /repos/{owner}/{repo}/contents/{path}': (ctx) => {
    const path = cleanPath(ctx.params.path)
    const body = record(ctx.body)
    const branch = str(body.branch) ?? ctx.model.state.defaultBranch
    const head = ctx.model.state.branches[branch]
    if (!head) return errorReply(404, `Branch ${branch} not found`)
    // a made-up head has no files: the write starts the branch's git history
    const existing = ctx.model.gitCommit(head) ? ctx.model.repo().path(head, path) : undefined
    if (existing?.type === 'dir') return errorReply(422, `${path} is a directory`)
    const given = str(body.sha)
    if (existing && given === undefined)
      return errorReply(422, 'Invalid request.\n\n"sha" wasn\'t supplied.')
    if (given !== undefined && existing?.sha !== given) {
      return errorReply(409, `${path} does not match ${given}`)
    }
    const content = Buffer.from(str(body.content) ?? '', 'base64')
    const message = str(body.message) ?? ''
    let sha: string
    try {
      sha = ctx.model.commitFiles(branch, { [path]: content }, message)
    } catch (error) {
      if (error instanceof RefMovedError) return errorReply(409, `${path} does not match ${given}`)
      throw error
    }
    const written = ctx.model.repo().path(sha, path)
    const file = contentsFile(ctx, path, branch, written?.sha ?? '', undefined, content.length)
    return {
      status: existing ? 200 : 201,
      body: { content: file, commit: { ...commitJson(ctx, sha), message } }
    }
  },

  // GitHub takes a tree SHA here, and also a commit SHA or a branch name.
  'GET /repos/{owner}/{repo}/git/trees/{tree_sha}': (ctx) => {
    const name = ctx.params.tree_sha ?? ''
    const commit = ctx.model.resolveRef(name, false)
    const treeish = commit && ctx.model.gitCommit(commit) ? commit : name
    if (!/^[0-9a-f]{40}$/.test(treeish) || !ctx.model.hasGit()) return notFound()
    // any value of `recursive` turns it on, as on GitHub
    const tree = ctx.model.repo().tree(treeish, ctx.query.has('recursive'))
    if (!tree) return notFound()
    return {
      status: 200,
      body: {
        sha: tree.sha,
        url: `${apiBase(ctx)}/git/trees/${tree.sha}`,
        truncated: false,
        tree: tree.entries.map((e) => ({
          path: e.path,
          mode: e.mode,
          type: e.type,
          sha: e.sha,
          ...(e.size === undefined ? {} : { size: e.size }),
          url: `${apiBase(ctx)}/git/${e.type === 'tree' ? 'trees' : 'blobs'}/${e.sha}`
        }))
      }
    }
  },

  'GET /repos/{owner}/{repo}/git/commits/{commit_sha}': (ctx) => {
    const info = ctx.model.commitInfo(ctx.params.commit_sha ?? '')
    if (!info) return notFound()
    ctx.model.markSeen(info.sha)
    return { status: 200, body: gitCommitJson(ctx, info) }
  }
}
