// @ts-check
/// <reference types="@actions/github-script" />

const fs = require("fs");
const path = require("path");

const { getErrorMessage } = require("./error_helpers.cjs");
const { globPatternToRegex } = require("./glob_pattern_helpers.cjs");
const { execGitSync } = require("./git_helpers.cjs");
const { parseAllowedRepos, validateRepo } = require("./repo_helpers.cjs");

/**
 * Push repo-memory changes to git branch
 * Environment variables:
 *   ARTIFACT_DIR: Path to the downloaded artifact directory containing memory files
 *   MEMORY_ID: Memory identifier (used for subdirectory path)
 *   TARGET_REPO: Target repository (owner/name)
 *   BRANCH_NAME: Branch name to push to
 *   MAX_FILE_SIZE: Maximum file size in bytes
 *   MAX_FILE_COUNT: Maximum number of files per commit
 *   MAX_PATCH_SIZE: Maximum total patch size in bytes (default: 10240 = 10KB)
 *   ALLOWED_EXTENSIONS: JSON array of allowed file extensions (e.g., '[".json",".txt"]')
 *   FILE_GLOB_FILTER: Optional space-separated list of file patterns (e.g., "*.md metrics/** data/**")
 *                     Supports * (matches any chars except /) and ** (matches any chars including /)
 *
 *                     IMPORTANT: Patterns are matched against the RELATIVE FILE PATH from the artifact directory,
 *                     NOT against the branch path. Do NOT include the branch name in the patterns.
 *
 *                     Example:
 *                       BRANCH_NAME: memory/code-metrics
 *                       Artifact file: /tmp/gh-aw/repo-memory/default/history.jsonl
 *                       Relative path tested: "history.jsonl"
 *                       CORRECT pattern: "*.jsonl"
 *                       INCORRECT pattern: "memory/code-metrics/*.jsonl"  (includes branch name)
 *
 *                     The branch name is used for git operations (checkout, push) but not for pattern matching.
 *   GH_TOKEN: GitHub token for authentication
 *   GITHUB_RUN_ID: Workflow run ID for commit messages
 */

async function main() {
  const artifactDir = process.env.ARTIFACT_DIR;
  const memoryId = process.env.MEMORY_ID;
  const targetRepo = process.env.TARGET_REPO;
  const branchName = process.env.BRANCH_NAME;
  const maxFileSize = parseInt(process.env.MAX_FILE_SIZE || "10240", 10);
  const maxFileCount = parseInt(process.env.MAX_FILE_COUNT || "100", 10);
  const maxPatchSize = parseInt(process.env.MAX_PATCH_SIZE || "10240", 10);
  const fileGlobFilter = process.env.FILE_GLOB_FILTER || "";

  // Parse allowed extensions with error handling
  let allowedExtensions = [".json", ".jsonl", ".txt", ".md", ".csv"];
  if (process.env.ALLOWED_EXTENSIONS) {
    try {
      allowedExtensions = JSON.parse(process.env.ALLOWED_EXTENSIONS);
    } catch (/** @type {any} */ error) {
      core.setFailed(`Failed to parse ALLOWED_EXTENSIONS environment variable: ${error.message}. Expected JSON array format.`);
      return;
    }
  }

  const ghToken = process.env.GH_TOKEN;
  const githubRunId = process.env.GITHUB_RUN_ID || "unknown";
  const githubServerUrl = process.env.GITHUB_SERVER_URL || "https://github.com";
  const serverHost = githubServerUrl.replace(/^https?:\/\//, "");

  // Log environment variable configuration for debugging
  core.info("Environment configuration:");
  core.info(`  MEMORY_ID: ${memoryId}`);
  core.info(`  MAX_FILE_SIZE: ${maxFileSize}`);
  core.info(`  MAX_FILE_COUNT: ${maxFileCount}`);
  core.info(`  MAX_PATCH_SIZE: ${maxPatchSize}`);
  core.info(`  ALLOWED_EXTENSIONS: ${JSON.stringify(allowedExtensions)}`);
  core.info(`  FILE_GLOB_FILTER: ${fileGlobFilter ? `"${fileGlobFilter}"` : "(empty - all files accepted)"}`);
  core.info(`  FILE_GLOB_FILTER length: ${fileGlobFilter.length}`);

  /** @param {unknown} value */
  function isPlainObject(value) {
    return typeof value === "object" && value !== null && !Array.isArray(value);
  }

  /** @param {string} absPath */
  function tryParseJSONFile(absPath) {
    const raw = fs.readFileSync(absPath, "utf8");
    if (!raw.trim()) {
      throw new Error(`Empty JSON file: ${absPath}`);
    }
    try {
      return JSON.parse(raw);
    } catch (e) {
      throw new Error(`Invalid JSON in ${absPath}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  // Validate required environment variables
  if (!artifactDir || !memoryId || !targetRepo || !branchName || !ghToken) {
    core.setFailed("Missing required environment variables: ARTIFACT_DIR, MEMORY_ID, TARGET_REPO, BRANCH_NAME, GH_TOKEN");
    return;
  }

  // Validate branch name against the naming constraints enforced by the compiler:
  //
  //  Non-wiki memory (default): "memory/{id}" or "{custom-prefix}/{id}"
  //    - The branch prefix is validated at compile time: 4-32 alphanumeric/hyphen/underscore chars
  //    - generateDefaultBranchName() always produces "{prefix}/{id}" with a "/" separator
  //  Wiki memory: bare branch name, typically "master" or "main"
  //    - Wikis use the repository's default branch and never create an orphan
  //    - The target repo is already appended with ".wiki" by the compiler
  //
  // At runtime we enforce:
  //   1. Namespaced branches (contain "/") to prevent pushing to top-level branches like "main"
  //   2. Known wiki branch names ("master", "main", "gh-pages") are only valid when
  //      TARGET_REPO ends with ".wiki" – the compiler always appends ".wiki" for wiki memory.
  const isNamespaced = /^[a-zA-Z0-9_-]+\/.+/.test(branchName);
  const isKnownWikiBranch = branchName === "master" || branchName === "main" || branchName === "gh-pages";
  const isWikiRepo = targetRepo.endsWith(".wiki");
  if (!isNamespaced && !isKnownWikiBranch) {
    core.setFailed(`ERR_VALIDATION: Invalid branch name "${branchName}": branch name must be namespaced (e.g. "memory/default") or a known wiki branch ("master", "main", "gh-pages")`);
    return;
  }
  if (isKnownWikiBranch && !isWikiRepo) {
    core.setFailed(`ERR_VALIDATION: Branch name "${branchName}" is only valid for wiki repositories (TARGET_REPO must end with ".wiki", got "${targetRepo}")`);
    return;
  }

  // Validate target repository against allowlist
  const allowedReposEnv = process.env.REPO_MEMORY_ALLOWED_REPOS?.trim();
  const allowedRepos = parseAllowedRepos(allowedReposEnv);
  const defaultRepo = `${context.repo.owner}/${context.repo.repo}`;

  const repoValidation = validateRepo(targetRepo, defaultRepo, allowedRepos);
  if (!repoValidation.valid) {
    core.setFailed(`E004: ${repoValidation.error}`);
    return;
  }

  // Source directory with memory files (artifact location)
  // The artifactDir IS the memory directory (no nested structure needed)
  const sourceMemoryPath = artifactDir;

  // Check if artifact memory directory exists
  if (!fs.existsSync(sourceMemoryPath)) {
    core.info(`Memory directory not found in artifact: ${sourceMemoryPath}`);
    return;
  }

  // We're already in the checked out repository (from checkout step)
  const workspaceDir = process.env.GITHUB_WORKSPACE || process.cwd();
  core.info(`Working in repository: ${workspaceDir}`);

  // Checkout or create the memory branch
  // Note: we do NOT disable sparse checkout here. Disabling sparse checkout on a
  // large repository forces git to materialize all tracked files into the working
  // tree, which can exhaust pipe buffers (ENOBUFS) when thousands of files are
  // involved. The memory branch only holds a handful of small files, so sparse
  // checkout does not need to be altered for either case below.
  core.info(`Checking out branch: ${branchName}...`);
  try {
    const repoUrl = `https://x-access-token:${ghToken}@${serverHost}/${targetRepo}.git`;

    // Try to fetch the branch
    try {
      execGitSync(["fetch", repoUrl, `${branchName}:${branchName}`], { stdio: "pipe", suppressLogs: true });
      execGitSync(["checkout", branchName], { stdio: "inherit" });
      core.info(`Checked out existing branch: ${branchName}`);
    } catch (fetchError) {
      // Determine whether the fetch failed because the branch does not exist
      // (expected for new memory branches) or because of a network / auth
      // problem (unexpected – must surface as a real error and must NOT fall
      // through to orphan-branch creation).
      const fetchErrMsg = fetchError instanceof Error ? fetchError.message : String(fetchError);
      const isMissingBranch = /couldn't find remote ref/i.test(fetchErrMsg) || /remote branch .* not found/i.test(fetchErrMsg);
      if (!isMissingBranch) {
        // Re-throw so the outer catch calls core.setFailed with the real cause.
        throw fetchError;
      }

      // Branch doesn't exist, create orphan branch
      core.info(`Branch ${branchName} does not exist, creating orphan branch...`);
      execGitSync(["checkout", "--orphan", branchName], { stdio: "inherit" });
      // Reset the index to an empty tree. This is O(1) regardless of how many
      // files the source branch contained, avoiding the ENOBUFS error that
      // "git rm -rf ." (with stdio:pipe) causes on large repos (10K+ files).
      execGitSync(["read-tree", "--empty"], { stdio: "pipe" });
      // Clean the working directory using Node.js so we never pipe large git
      // output back through spawnSync buffers.
      core.info("Cleaning working directory for orphan branch...");
      for (const entry of fs.readdirSync(workspaceDir)) {
        if (entry !== ".git") {
          fs.rmSync(path.join(workspaceDir, entry), { recursive: true, force: true });
        }
      }
      core.info(`Created orphan branch: ${branchName}`);
    }
  } catch (error) {
    core.setFailed(`Failed to checkout branch: ${getErrorMessage(error)}`);
    return;
  }

  // Create destination directory in repo
  // Files are copied to the root of the checked-out branch (workspaceDir)
  // The branch name (e.g., "memory/campaigns") identifies the branch,
  // but files go at the branch root, not in a nested subdirectory
  const destMemoryPath = workspaceDir;
  core.info(`Destination directory: ${destMemoryPath}`);

  // Recursively scan and collect files from artifact directory
  let filesToCopy = [];

  // Log the file glob filter configuration
  if (fileGlobFilter) {
    core.info(`File glob filter enabled: ${fileGlobFilter}`);
    const patternCount = fileGlobFilter.trim().split(/\s+/).filter(Boolean).length;
    core.info(`Number of patterns: ${patternCount}`);
  } else {
    core.info("No file glob filter - all files will be accepted");
  }

  /**
   * Recursively scan directory and collect files
   * @param {string} dirPath - Directory to scan
   * @param {string} relativePath - Relative path from sourceMemoryPath (for nested files)
   */
  function scanDirectory(dirPath, relativePath = "") {
    const entries = fs.readdirSync(dirPath, { withFileTypes: true });

    for (const entry of entries) {
      const fullPath = path.join(dirPath, entry.name);
      const relativeFilePath = relativePath ? path.join(relativePath, entry.name) : entry.name;

      if (entry.isDirectory()) {
        // Recursively scan subdirectory
        scanDirectory(fullPath, relativeFilePath);
      } else if (entry.isFile()) {
        const stats = fs.statSync(fullPath);

        // Validate file name patterns if filter is set
        if (fileGlobFilter) {
          const patternStrs = fileGlobFilter.trim().split(/\s+/).filter(Boolean);
          const patterns = patternStrs.map(pattern => globPatternToRegex(pattern));

          // Test patterns against the relative file path within the memory directory
          // Patterns are specified relative to the memory artifact directory, not the branch path
          const normalizedRelPath = relativeFilePath.replace(/\\/g, "/");

          // Enhanced logging: Show what we're testing (use info for first file to aid debugging)
          core.debug(`Testing file: ${normalizedRelPath}`);
          core.debug(`File glob filter: ${fileGlobFilter}`);
          core.debug(`Number of patterns: ${patterns.length}`);

          const matchResults = patterns.map((pattern, idx) => {
            const matches = pattern.test(normalizedRelPath);
            core.debug(`  Pattern ${idx + 1}: "${patternStrs[idx]}" -> ${pattern.source} -> ${matches ? "✓ MATCH" : "✗ NO MATCH"}`);
            return matches;
          });

          if (!matchResults.some(m => m)) {
            // Enhanced warning with more context about the filtering issue
            core.warning(`Skipping file that does not match allowed patterns: ${normalizedRelPath}`);
            core.info(`  File path being tested (relative to artifact): ${normalizedRelPath}`);
            core.info(`  Configured patterns: ${fileGlobFilter}`);
            patterns.forEach((pattern, idx) => {
              core.info(`    Pattern: "${patternStrs[idx]}" -> Regex: ${pattern.source} -> ${matchResults[idx] ? "✅ MATCH" : "❌ NO MATCH"}`);
            });
            core.info(`  Note: Patterns are matched against the full relative file path from the artifact directory.`);
            core.info(`  If patterns include directory prefixes (like 'branch-name/'), ensure files are organized that way in the artifact.`);
            // Skip this file instead of failing - it may be from a previous run with different patterns
            return;
          }
        }

        // Validate file size
        if (stats.size > maxFileSize) {
          core.error(`File exceeds size limit: ${relativeFilePath} (${stats.size} bytes > ${maxFileSize} bytes)`);
          core.setFailed("File size validation failed");
          throw new Error("File size validation failed");
        }

        filesToCopy.push({
          relativePath: relativeFilePath,
          source: fullPath,
          size: stats.size,
        });
      }
    }
  }

  try {
    scanDirectory(sourceMemoryPath);
    core.info(`Scan complete: Found ${filesToCopy.length} file(s) to copy`);
    if (filesToCopy.length > 0 && filesToCopy.length <= 10) {
      core.info("Files found:");
      filesToCopy.forEach(f => core.info(`  - ${f.relativePath} (${f.size} bytes)`));
    } else if (filesToCopy.length > 10) {
      core.info(`First 10 files:`);
      filesToCopy.slice(0, 10).forEach(f => core.info(`  - ${f.relativePath} (${f.size} bytes)`));
      core.info(`  ... and ${filesToCopy.length - 10} more`);
    }
  } catch (error) {
    core.setFailed(`Failed to scan artifact directory: ${getErrorMessage(error)}`);
    return;
  }

  // Validate file count
  if (filesToCopy.length > maxFileCount) {
    core.setFailed(`Too many files (${filesToCopy.length} > ${maxFileCount})`);
    return;
  }

  if (filesToCopy.length === 0) {
    core.info("No files to copy from artifact");
    return;
  }

  // Validate file types before copying
  const { validateMemoryFiles } = require("./validate_memory_files.cjs");
  const validation = validateMemoryFiles(sourceMemoryPath, "repo", allowedExtensions);
  if (!validation.valid) {
    const errorMessage = `File type validation failed: Found ${validation.invalidFiles.length} file(s) with invalid extensions. Only ${allowedExtensions.join(", ")} are allowed. Invalid files: ${validation.invalidFiles.join(", ")}`;
    core.setOutput("validation_failed", "true");
    core.setOutput("validation_error", errorMessage);
    core.setFailed(errorMessage);
    return;
  }

  core.info(`Copying ${filesToCopy.length} validated file(s)...`);

  // Copy files to destination (preserving directory structure)
  for (const file of filesToCopy) {
    const destFilePath = path.join(destMemoryPath, file.relativePath);
    const destDir = path.dirname(destFilePath);

    try {
      // Path traversal protection
      const resolvedRoot = path.resolve(destMemoryPath) + path.sep;
      const resolvedDest = path.resolve(destFilePath);
      if (!resolvedDest.startsWith(resolvedRoot)) {
        core.setFailed(`Refusing to write outside repo-memory directory: ${file.relativePath}`);
        return;
      }

      // Ensure destination directory exists
      fs.mkdirSync(destDir, { recursive: true });

      // Copy file
      fs.copyFileSync(file.source, destFilePath);
      core.info(`Copied: ${file.relativePath} (${file.size} bytes)`);
    } catch (error) {
      core.setFailed(`Failed to copy file ${file.relativePath}: ${getErrorMessage(error)}`);
      return;
    }
  }

  // Check if we have any changes to commit
  let hasChanges = false;
  try {
    const status = execGitSync(["status", "--porcelain"]);
    hasChanges = status.trim().length > 0;
  } catch (error) {
    core.setFailed(`Failed to check git status: ${getErrorMessage(error)}`);
    return;
  }

  if (!hasChanges) {
    core.info("No changes detected after copying files");
    return;
  }

  core.info("Changes detected, committing and pushing...");

  // Stage all changes.
  // --sparse: "Allow updating index entries outside of the sparse-checkout cone.
  // Normally, git add refuses to update index entries whose paths do not fit
  // within the sparse-checkout cone, since those files might be removed from the
  // working tree without warning." (git-add(1))
  // This is required because "git checkout --orphan" can re-activate
  // sparse-checkout, causing a plain "git add ." to silently skip or reject
  // files on the first run for a new memory branch.
  try {
    execGitSync(["add", "--sparse", "."], { stdio: "inherit" });
  } catch (error) {
    core.setFailed(`Failed to stage changes: ${getErrorMessage(error)}`);
    return;
  }

  // Validate total patch size before committing
  // Only additions (new content) are counted toward the patch size limit.
  // Deletions are ignored since removing content is acceptable and does not
  // contribute to the size of the content being pushed.
  try {
    const patchContent = execGitSync(["diff", "--cached"], { stdio: "pipe" });
    // Count only added lines (starting with '+', excluding '+++' file-header lines)
    const addedSizeBytes = patchContent
      .split("\n")
      .filter(line => line.startsWith("+") && !line.startsWith("+++"))
      .reduce((sum, line) => sum + Buffer.byteLength(line + "\n", "utf8"), 0);
    const patchSizeBytes = addedSizeBytes;
    const patchSizeKb = Math.ceil(patchSizeBytes / 1024);
    const maxPatchSizeKb = Math.floor(maxPatchSize / 1024);
    // Allow 20% overhead to account for git diff format (headers, context lines, etc.)
    const effectiveMaxPatchSize = Math.floor(maxPatchSize * 1.2);
    const effectiveMaxPatchSizeKb = Math.floor(effectiveMaxPatchSize / 1024);
    const patchSizeMessage = `Patch additions size: ${patchSizeKb} KB (${patchSizeBytes} bytes) (configured limit: ${maxPatchSizeKb} KB (${maxPatchSize} bytes), effective with 20% overhead: ${effectiveMaxPatchSizeKb} KB (${effectiveMaxPatchSize} bytes))`;
    if (patchSizeBytes > effectiveMaxPatchSize) {
      // Warn at warning level so the size is visible even without verbose mode
      core.warning(patchSizeMessage);
      // Add per-file diff stats to diagnose what's causing the large patch
      // (e.g. a full rewrite of an accumulated history file shows old + new content in the diff)
      try {
        const diffStat = execGitSync(["diff", "--cached", "--stat"], { stdio: "pipe" });
        core.warning(`Patch content breakdown (git diff --stat):\n${diffStat}`);
      } catch (statError) {
        core.warning(`Could not retrieve diff stat: ${getErrorMessage(statError)}`);
      }
      core.setOutput("patch_size_exceeded", "true");
      core.setFailed(
        `Patch additions size (${patchSizeKb} KB, ${patchSizeBytes} bytes) exceeds maximum allowed size (${effectiveMaxPatchSizeKb} KB, ${effectiveMaxPatchSize} bytes, configured limit: ${maxPatchSizeKb} KB with 20% overhead allowance). Reduce the number or size of changes, or increase max-patch-size.`
      );
      return;
    } else if (patchSizeBytes > maxPatchSize) {
      // Within the 20% overhead window — still log as a warning so it's visible
      core.warning(patchSizeMessage);
    } else {
      core.info(patchSizeMessage);
    }
  } catch (error) {
    core.setFailed(`Failed to compute patch additions size: ${getErrorMessage(error)}`);
    return;
  }

  // Commit changes
  try {
    execGitSync(["commit", "-m", `Update repo memory from workflow run ${githubRunId}`], { stdio: "inherit" });
  } catch (error) {
    core.setFailed(`Failed to commit changes: ${getErrorMessage(error)}`);
    return;
  }

  const repoUrl = `https://x-access-token:${ghToken}@${serverHost}/${targetRepo}.git`;
  const MAX_RETRIES = 3;
  const BASE_DELAY_MS = 1000;

  for (let attempt = 0; attempt <= MAX_RETRIES; attempt++) {
    // Pull with merge strategy (ours wins on conflicts)
    core.info(`Pulling latest changes from ${branchName}...`);
    try {
      execGitSync(["pull", "--no-rebase", "-X", "ours", repoUrl, branchName], { stdio: "inherit", suppressLogs: true });
    } catch (error) {
      // Pull might fail if branch doesn't exist yet or on conflicts - this is acceptable
      core.info(`Pull failed (this is expected when branch does not exist yet): ${getErrorMessage(error)}`);
    }

    // Push changes
    core.info(`Pushing changes to ${branchName}...`);
    try {
      execGitSync(["push", repoUrl, `HEAD:${branchName}`], { stdio: "inherit" });
      core.info(`Successfully pushed changes to ${branchName} branch`);
      return;
    } catch (error) {
      if (attempt < MAX_RETRIES) {
        const delay = BASE_DELAY_MS * Math.pow(2, attempt);
        core.warning(`Push failed (attempt ${attempt + 1}/${MAX_RETRIES + 1}), retrying in ${delay}ms: ${getErrorMessage(error)}`);
        await new Promise(resolve => setTimeout(resolve, delay));
      } else {
        core.setFailed(`Failed to push changes after ${MAX_RETRIES + 1} attempts: ${getErrorMessage(error)}`);
        return;
      }
    }
  }
}

module.exports = { main };
