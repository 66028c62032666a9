#!/usr/bin/env bash
# hub_mkrepo.sh SRC GITDIR: turns folder SRC into a Hub-style git
# repository at GITDIR (branch main) for olah's local mirrors: *.safetensors
# and *.parquet become git-LFS pointers whose objects go to
# GITDIR/.git/lfs/objects, as `git lfs` would store them.
set -euo pipefail
src="$1" dst="$2"
rm -rf "$dst"
mkdir -p "$dst"
git -C "$dst" init -q -b main
(cd "$src" && find . -type f | sed 's|^\./||' | sort) | while read -r f; do
  mkdir -p "$dst/$(dirname "$f")"
  case "$f" in
    *.safetensors|*.parquet)
      oid=$(sha256sum "$src/$f" | cut -d' ' -f1)
      size=$(stat -c %s "$src/$f")
      obj="$dst/.git/lfs/objects/${oid:0:2}/${oid:2:2}/$oid"
      mkdir -p "$(dirname "$obj")"
      cp "$src/$f" "$obj"
      printf 'version https://git-lfs.github.com/spec/v1\noid sha256:%s\nsize %s\n' "$oid" "$size" >"$dst/$f"
      ;;
    *) cp "$src/$f" "$dst/$f" ;;
  esac
done
printf '*.safetensors filter=lfs diff=lfs merge=lfs -text\n*.parquet filter=lfs diff=lfs merge=lfs -text\n' >"$dst/.gitattributes"
git -C "$dst" add -A
git -C "$dst" -c user.name=goeval -c user.email=goeval@localhost -c commit.gpgsign=false commit -q -m "goeval hub test repository"
