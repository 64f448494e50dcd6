/**
 * Files whose content is never sent to a model: git internals, and names that usually hold
 * secrets. Pages and sources come from teammates and pulled branches, so a citation or an ingest
 * glob must not be able to ship `.git/config` or `.env` to the API.
 */
const GIT_DIR = /(^|\/)\.git(\/|$)/;
const SECRET_NAME = /^(\.env(\..+)?|\.npmrc|\.netrc|\.pypirc|\.htpasswd|id_(rsa|dsa|ecdsa|ed25519)(\.pub)?|credentials(\.json)?|secrets?\.(json|ya?ml|toml)|.*\.(pem|key|p12|pfx|jks|keystore|kdbx))$/i;

/** Why the workspace-relative `relPath` is never sent to a model, or undefined when it may be. */
export function sensitivePathReason(relPath: string): string | undefined {
  if (GIT_DIR.test(relPath)) return 'is inside .git';
  if (SECRET_NAME.test(relPath.split('/').pop() ?? '')) return 'is named like a file that holds secrets';
  return undefined;
}
