#!/usr/bin/env bash
# A release without publishing: builds with -Prelease, signs with a throwaway key, stages into a directory, and
# checks what a repository such as Maven Central requires of every deployed module: the POM, the jar (a BOM: the
# POM only), the sources and javadoc jars, each signed (.asc, verified), and the POM's name, description, url,
# licence, developers and scm. Prints a checklist and exits 1 when anything is missing.
#
# Usage: bash scripts/release-dry-run.sh [extra Maven arguments]
#        bash scripts/release-dry-run.sh --check DIR   # only the checks, on a directory staged before
# A module's metadata may come from its parent (deployed too), as Maven Central accepts.
# The real release is in docs/releasing.md; this script is what it runs first.
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d)
trap 'gpgconf --homedir "$work/gnupg" --kill gpg-agent >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
export GNUPGHOME="$work/gnupg"
mkdir -m 700 "$GNUPGHOME"
if [ "${1:-}" = --check ]; then
  staging=$(cd "$2" && pwd)
  # the signatures were made with the key of the run that staged them: import its public key from there
  [ -f "$staging/dry-run-key.asc" ] && gpg --batch --quiet --import "$staging/dry-run-key.asc"
else
  gpg --batch --quiet --passphrase '' --quick-gen-key 'Release dry run <dry-run@invalid>' ed25519 sign 1d
  key=$(gpg --batch --list-secret-keys --with-colons | awk -F: '/^fpr/ { print $10; exit }')
  staging="target/release-dry-run"
  rm -rf "$staging"
  mkdir -p "$staging"
  staging=$(cd "$staging" && pwd)
  echo "[release-dry-run] building, signing and staging into $staging ..." >&2
  ./mvnw -B -ntp -q -Prelease -DskipTests -Dgpg.keyname="$key" -Dgpg.passphrase='' \
    -Drelease.staging.url="file://$staging" deploy "$@"
  gpg --batch --armor --export "$key" > "$staging/dry-run-key.asc"
fi

fail=0
check() { # MESSAGE CONDITION...
  local what=$1; shift
  if "$@"; then echo "  ✓ $what"; else echo "  ✗ $what"; fail=1; fi
}
# has_tag POM TAG: the POM declares TAG, or inherits it from a parent staged beside it
has_tag() {
  local pom=$1 tag=$2 parent
  grep -q "<$tag[ >]" "$pom" && return 0
  parent=$(sed -n '/<parent>/,/<\/parent>/s:.*<artifactId>\(.*\)</artifactId>.*:\1:p' "$pom" | head -1)
  [ -n "$parent" ] || return 1
  local ppom
  ppom=$(find "$staging" -path "*/$parent/*" -name "$parent-*.pom" | head -1)
  [ -n "$ppom" ] && has_tag "$ppom" "$tag"
}
for pom in $(find "$staging" -name '*.pom' | sort); do
  dir=$(dirname "$pom"); base=${pom%.pom}; artifact=$(basename "$(dirname "$dir")")
  echo "$artifact"
  packaging=$(sed -n 's:.*<packaging>\(.*\)</packaging>.*:\1:p' "$pom" | head -1)
  files=("$pom")
  if [ "${packaging:-jar}" != pom ]; then
    files+=("$base.jar" "$base-sources.jar" "$base-javadoc.jar")
  fi
  for f in "${files[@]}"; do
    check "$(basename "$f") and its signature" test -s "$f" -a -s "$f.asc"
    [ -s "$f.asc" ] && check "$(basename "$f").asc verifies" gpg --batch --quiet --verify "$f.asc" "$f" 2>/dev/null
  done
  for tag in name description; do
    check "<$tag> in the POM" grep -q "<$tag>" "$pom"
  done
  for tag in url licenses developers scm; do
    check "<$tag> in the POM or its parent's" has_tag "$pom" "$tag"
  done
  check "url not appended with the artifactId" bash -c "! grep -q '<url>[^<]*/$artifact</url>' '$pom'"
done
[ "$fail" = 0 ] && echo "[release-dry-run] every staged module has what a repository requires" >&2
exit "$fail"
