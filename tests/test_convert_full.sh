#!/bin/sh
# The converter on a full disk: a message that says so, a non-zero exit, and no output file
# (an existing output is left as it was). Two ways to fill the disk: a 256 KiB tmpfs (in a
# user and mount namespace, where unshare allows it) and /dev/full (the temporary output is
# a link to it).
b=${BUILD:-build}
d=$b/tests/diskfull; rm -rf $d; mkdir -p $d

# check LOG RC: failed with a disk-full message
check() {
  if [ "$2" -eq 0 ]; then echo "convert reported success on a full disk"; cat "$1"; exit 1; fi
  if ! grep -q "convert: .*No space left on device" "$1"; then echo "no disk-full message:"; cat "$1"; exit 1; fi
}

ln -s /dev/full $d/out.llm.tmp
$b/convert models/kjv-tiny $d/out.llm >$d/devfull.log 2>&1; check $d/devfull.log $?
# (the link itself may stay: wine cannot delete a link to a device; the tmpfs run below
# checks that the temporary file goes)
if [ -e $d/out.llm ]; then echo "an output file was left behind:"; ls -l $d; exit 1; fi
rm -f $d/out.llm.tmp
echo "/dev/full: $(grep -m1 'convert:.*No space' $d/devfull.log)"

mkdir -p $d/small
if [ -e $b/convert.exe ]; then
  echo "tmpfs: not under wine (wineserver opens files outside the mount namespace)"
elif unshare -rm true 2>/dev/null; then
  unshare -rm sh -c "
    mount -t tmpfs -o size=256k tmpfs $d/small || exit 3
    echo old > $d/small/out.llm
    $b/convert models/kjv-tiny $d/small/out.llm >$d/tmpfs.log 2>&1; echo \$? > $d/tmpfs.rc
    ls -A $d/small > $d/tmpfs.files; cat $d/small/out.llm > $d/tmpfs.old"
  rc=$?
  if [ $rc -eq 3 ]; then echo "tmpfs: cannot mount here, /dev/full only"; exit 0; fi
  check $d/tmpfs.log "$(cat $d/tmpfs.rc)"
  [ "$(cat $d/tmpfs.files)" = "out.llm" ] || { echo "tmpfs: files left behind: $(cat $d/tmpfs.files)"; exit 1; }
  [ "$(cat $d/tmpfs.old)" = "old" ] || { echo "tmpfs: the existing output was changed"; exit 1; }
  echo "tmpfs: $(grep -m1 'convert:.*No space' $d/tmpfs.log); the existing output is untouched"
else
  echo "tmpfs: unshare is not allowed here, /dev/full only"
fi

# A successful conversion replaces an existing output (rename does not on Windows).
echo old > $d/again.llm
$b/convert models/kjv-tiny $d/again.llm >$d/again.log 2>&1 || { echo "convert over an existing file failed:"; tail -n 3 $d/again.log; exit 1; }
[ "$(head -c 4 $d/again.llm)" = "LLMF" ] || { echo "the existing output was not replaced"; exit 1; }
echo "an existing output is replaced by a successful conversion"
