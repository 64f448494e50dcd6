/**
 * Files whose content is never sent to a model: git internals, and names that usually hold
 * secrets. Pages and sources come from teammates and pulled branches, so a citation or an ingest
 * glob must not be able to ship `.git/config` or `.env` to the API.
 *
 * The names come from the file signatures of secret scanners, not from guesses: gitrob's
 * (michenriksen/gitrob, core/signatures.go) and shhgit's (eth0izzle/shhgit, config.yaml), which
 * Skyscanner's whispers repeats (whispers/rules/sensitive-files.yml), and gitleaks' pkcs12-file
 * rule. Added to them: the files where a tool's own documentation says it keeps credentials in
 * clear (Terraform's state and `terraform login` token, Docker's `auth` entries, a kubeconfig's
 * client keys, the GitHub, Google Cloud, Azure and Cargo command lines, Vault's token, direnv's
 * `.envrc`, MySQL's `.my.cnf`). Left out: their signatures for code and ordinary configuration
 * (`settings.py`, `database.yml`, `*.log`, `*.sql`, shell rc files), which a wiki cites.
 */
const GIT_DIR = /(^|\/)\.git(\/|$)/;

/** Folders whose every file is a credential store: SSH keys and config, GnuPG keyrings, cloud command lines' tokens. */
const SECRET_DIR = /(^|\/)(\.ssh|\.gnupg|\.azure|\.config\/gcloud|\.config\/gh)(\/|$)/i;

/** Files known by their folder too: `<folder>/<name>`. */
const SECRET_FILE_IN = /(^|\/)(\.aws\/(credentials|config)|\.docker\/config\.json|\.kube\/config|\.gem\/credentials|\.cargo\/credentials(\.toml)?|\.terraform\.d\/credentials\.tfrc\.json|\.config\/hub|doctl\/config\.yaml|\.chef\/[^/]+\.pem)$/i;

/** Names that hold secrets wherever they are. */
const SECRET_NAME = new RegExp(
  '^(' +
    [
      // Environment files (shhgit; direnv's .envrc; `prod.env` and the like).
      '\\.env(\\..+)?', '\\.envrc', '.+\\.env',
      // Package registries' and tools' login files (gitrob, shhgit).
      '\\.npmrc', '\\.pypirc', '\\.dockercfg', '\\.git-credentials', '\\.gitconfig', '[._]?netrc', '\\.pgpass', '\\.my\\.cnf',
      '\\.s3cfg', '\\.tugboat', '\\.vault-token', '\\.htpasswd', 'proftpdpasswd', '\\.muttrc', '\\.trc', 'otr\\.private_key',
      // SSH private keys: id_rsa, id_ed25519_work, deploy_rsa (gitrob: ^.*_(rsa|dsa|ed25519|ecdsa)$).
      'id_(rsa|dsa|ecdsa|ed25519)([._-].*)?', '.+_(rsa|dsa|ecdsa|ed25519)',
      // Shell and database client histories (gitrob).
      '\\.?(bash_|zsh_|sh_|z)?history', '\\.?(mysql|psql|irb)_history',
      // Credential files (gitrob: credentials.xml of Jenkins; AWS key downloads).
      'credentials(\\.(json|xml|ya?ml|toml|csv))?', 'secrets?\\.(json|ya?ml|toml)', 'secret_token\\.rb',
      'sftp-config(\\.json)?', 'sftp\\.json', 'jenkins\\.plugins\\.publish_over_ssh\\.BapSshPublisherPlugin\\.xml',
      // Terraform: state and variables hold secrets in clear (gitrob: terraform.tfvars).
      '.*\\.tfstate(\\.backup)?', 'terraform\\.tfvars(\\.json)?',
      // Kubeconfig files under their usual names.
      'kubeconfig(\\.ya?ml)?', '.+\\.kubeconfig',
      // Keys, key bundles, keychains and password databases (gitrob, shhgit, gitleaks pkcs12-file).
      '.*\\.(pem|key|keypair|p12|pfx|pkcs12|jks|keystore|keyring|keychain|agilekeychain|kwallet|kdbx?|psafe3|ppk|ovpn|asc|bek|tpm|fve)',
    ].join('|') +
    ')$',
  'i',
);

/** Why the workspace-relative `relPath` is never sent to a model, or undefined when it may be. */
export function sensitivePathReason(relPath: string): string | undefined {
  if (GIT_DIR.test(relPath)) return 'is inside .git';
  if (SECRET_DIR.test(relPath) || SECRET_FILE_IN.test(relPath)) return 'is a file where credentials are kept';
  if (SECRET_NAME.test(relPath.split('/').pop() ?? '')) return 'is named like a file that holds secrets';
  return undefined;
}
