# Figures the benchmark scripts read from h2load and reduce over rounds. Sourced, not run.

# h2load's achieved requests/s, from its output.
requests_per_second() { sed -n 's/^finished in .*, \([0-9.]*\) req\/s.*/\1/p' <<<"$1"; }
# $1/$2 to two places.
ratio() { python3 -c "print(f'{$1/$2:.2f}')"; }
# The median of the arguments, to two places (the upper one of an even count).
median() { printf '%s\n' "$@" | python3 -c 'import sys; v=sorted(float(x) for x in sys.stdin); print(f"{v[len(v)//2]:.2f}")'; }
