# The man pages tell the truth about the commands: every command of
# 'dsprof --help' has its page, listed in dsprof(1)'s SEE ALSO; every option
# of 'dsprof COMMAND --help' is in the command's page; every view of
# 'dsprof report --help' is in dsprof-report(1).
. "$TOP/tests/lib.sh"

# the words of a man page's source, its escapes undone
man_text() { sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$1"; }

"$DSPROF" --help >help.txt 2>&1
cmds=$(awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }' help.txt)
check "dsprof --help lists commands" test -n "$cmds"
man_text "$TOP/docs/dsprof.1" >dsprof.man
for page in "$TOP"/docs/dsprof-*.1; do
	name=$(basename "$page" .1)
	check_contains "dsprof(1) SEE ALSO lists $name" dsprof.man "^\.BR $name \(1\)"
done
for c in $cmds; do
	page="$TOP/docs/dsprof-$c.1"
	if [ ! -f "$page" ]; then
		not_ok "$c: no man page docs/dsprof-$c.1"
		continue
	fi
	ok "$c: has its man page"
	check_contains "dsprof(1) describes $c" dsprof.man "^\.B $c$"
	man_text "$page" >"$c.man"
	"$DSPROF" "$c" --help >"$c.help" 2>&1
	# options as the help spells them: "-x, --long ARG" and "--long ARG"
	for opt in $(grep -oE '(^|[ ,])--?[a-zA-Z][-a-zA-Z0-9]*' "$c.help" | sed 's/^[ ,]*//' | sort -u); do
		if grep -Eq -- "(^|[^-a-zA-Z0-9])$opt([^-a-zA-Z0-9]|$)" "$c.man"; then
			ok "$c: $opt is in dsprof-$c(1)"
		else
			not_ok "$c: $opt is in --help but not in dsprof-$c(1)"
		fi
	done
done
# report's views, as its --help lists them
views=$(sed -n '/--view VIEW/,/^  -s/p' report.help | sed '$d' | sed 's/.*--view VIEW//' |
	tr ',' '\n' | sed -e 's/(.*//' -e 's/^ *//' -e 's/ .*//' | grep -E '^[a-z]+(:NAME)?$')
check "report --help lists views" test -n "$views"
for v in $views; do
	check_contains "report: the $v view is in dsprof-report(1)'s VIEWS" report.man "^\\.BI? ${v%%:*}(:| |\$)"
done
