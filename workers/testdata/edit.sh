#!/bin/sh
# A worker that edits the files of its working directory: it appends its
# brief's first line to a.txt and creates b.txt. It says where it ran.
read -r line
printf '%s\n' "$line" >> a.txt
printf 'new file\n' > b.txt
pwd
# Try to write the workdir too, which the sandbox should refuse.
[ -n "$ESCAPE" ] && printf 'escaped\n' > "$ESCAPE" 2>/dev/null
exit 0
