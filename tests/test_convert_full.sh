#!/bin/sh
# How the converter writes its output: a temporary file created beside it exclusively (a
# planted file or link of the name it tries is skipped, never written through), renamed
# over the output only when complete, removed on failure and on SIGTERM; a target that is
# not a regular file (a device, a directory) is refused before any work. On a full disk
# (a 256 KiB tmpfs in a user and mount namespace, where unshare allows it): a message that
# says so, a non-zero exit, no output file, and an existing output left as it was.
b=${BUILD:-build}
d=$b/tests/convert_full; rm -rf $d; mkdir -p $d
fail() { echo "$@"; exit 1; }
wine=0; [ -e $b/convert.exe ] && wine=1

# Links planted where the temporary goes: OUT.tmp (the old fixed name) and the first two
# names this process would try (OUT.tmp.PID.0 and .1; sh -c keeps its PID through exec).
echo precious > $d/victim
ln -s victim $d/out.llm.tmp
sh -c 'ln -s victim "$0/out.llm.tmp.$$.0"; ln -s victim "$0/out.llm.tmp.$$.1"; exec "$1" models/kjv-tiny "$0/out.llm"' \
  $d $b/convert >$d/planted.log 2>&1 || { cat $d/planted.log; fail "convert beside planted links failed"; }
[ "$(cat $d/victim)" = precious ] || fail "a planted link was written through"
[ $(ls $d | grep -c '^out.llm.tmp') -eq 3 ] && [ -L $d/out.llm.tmp ] || { ls -l $d; fail "the planted links were not left alone"; }
[ "$(head -c 4 $d/out.llm)" = LLMF ] || fail "no output beside the planted links"
echo "planted links at the temporary names: not followed, left alone; the output is written"

# The temporary, and so the output, is created 0644 less the umask.
(umask 077; $b/convert models/kjv-tiny $d/private.llm >/dev/null 2>&1) || fail "convert with umask 077 failed"
[ $wine = 1 ] || case "$(ls -l $d/private.llm)" in -rw-------*) ;; *) ls -l $d/private.llm; fail "umask 077 not honoured";; esac

# A target that is not a regular file: refused before anything is written, left as it was.
# (rename() would replace a device node or a link to one: as root, /dev/full itself.)
if [ $wine = 1 ]; then
  echo "devices: not under wine"
else
  ln -s /dev/full $d/devlink.llm
  made_node=0; mknod $d/devnode.llm c 1 7 2>/dev/null && made_node=1
  mkdir $d/dir.llm
  for t in devlink.llm dir.llm $( [ $made_node = 1 ] && echo devnode.llm ); do
    $b/convert models/kjv-tiny $d/$t >$d/$t.log 2>&1 && fail "convert onto $t succeeded"
    grep -q "convert: $d/$t exists and is not a regular file" $d/$t.log || { cat $d/$t.log; fail "no message for $t"; }
    grep -q "reading" $d/$t.log && fail "$t was refused only after reading the model"
    ls $d | grep -q "^$t.tmp" && fail "a temporary was left beside $t"
  done
  [ -L $d/devlink.llm ] && [ -c $d/devlink.llm ] && [ -c /dev/full ] || fail "the link to /dev/full was replaced"
  [ $made_node = 0 ] || [ -c $d/devnode.llm ] || fail "the device node was replaced"
  [ -d $d/dir.llm ] || fail "the directory was replaced"
  echo "a link to /dev/full, a directory$( [ $made_node = 1 ] && echo ' and a device node'): $(cat $d/dir.llm.log | tail -n 1)"
fi

# SIGTERM while the tensors are written (q4_0 takes a few hundredths of a second here): the
# temporary goes, and the process ends by the signal. Each try waits for the temporary to
# appear; a run that ends before the signal lands is tried again.
if [ $wine = 1 ]; then
  echo "SIGTERM: not under wine"
else
  caught=0; try=0
  while [ $caught = 0 ] && [ $try -lt 5 ]; do
    try=$((try + 1))
    $b/convert models/kjv-tiny $d/sig.llm --dtype q4_0 >$d/sig.log 2>&1 &
    pid=$!
    while kill -0 $pid 2>/dev/null; do
      set -- $d/sig.llm.tmp.*
      [ -e "$1" ] && { kill -TERM $pid; caught=1; break; }
    done
    wait $pid; rc=$?
    if [ $caught = 1 ] && [ $rc -eq 0 ]; then caught=0; fi # it finished before the signal landed
    rm -f $d/sig.llm
  done
  [ $caught = 1 ] || fail "SIGTERM: the conversion always finished before the signal (5 tries)"
  [ $rc -eq 143 ] || fail "SIGTERM: exit status $rc, not 143 (killed by SIGTERM)"
  ls $d | grep -q '^sig.llm' && { ls $d; fail "SIGTERM: a temporary or output was left behind"; }
  echo "SIGTERM during the conversion (try $try): status $rc, no temporary left"
fi

# A full disk.
mkdir -p $d/small
if [ $wine = 1 ]; then
  echo "tmpfs: not under wine (wineserver opens files outside the mount namespace)"
elif unshare -rm true 2>/dev/null; then
  unshare -rm sh -c "
    mount -t tmpfs -o size=256k tmpfs $d/small || exit 3
    echo old > $d/small/out.llm
    $b/convert models/kjv-tiny $d/small/out.llm >$d/tmpfs.log 2>&1; echo \$? > $d/tmpfs.rc
    ls -A $d/small > $d/tmpfs.files; cat $d/small/out.llm > $d/tmpfs.old"
  if [ $? -eq 3 ]; then
    echo "tmpfs: cannot mount here"
  else
    [ "$(cat $d/tmpfs.rc)" -ne 0 ] || { cat $d/tmpfs.log; fail "convert reported success on a full disk"; }
    grep -q "convert: .*No space left on device" $d/tmpfs.log || { cat $d/tmpfs.log; fail "no disk-full message"; }
    [ "$(cat $d/tmpfs.files)" = "out.llm" ] || fail "tmpfs: files left behind: $(cat $d/tmpfs.files)"
    [ "$(cat $d/tmpfs.old)" = "old" ] || fail "tmpfs: the existing output was changed"
    echo "tmpfs: $(grep -m1 'convert:.*No space' $d/tmpfs.log); the existing output is untouched"
  fi
else
  echo "tmpfs: unshare is not allowed here"
fi

# A successful conversion replaces an existing output (rename does not on Windows).
echo old > $d/again.llm
$b/convert models/kjv-tiny $d/again.llm >$d/again.log 2>&1 || { tail -n 3 $d/again.log; fail "convert over an existing file failed"; }
[ "$(head -c 4 $d/again.llm)" = "LLMF" ] || fail "the existing output was not replaced"
echo "an existing output is replaced by a successful conversion"
