# `./tensafe report`: billing reports from a running marketplace, signed in through Keycloak with
# the password grant (client tensafe-web). Source common.sh first.

help_report() {
  cat <<'TXT'
  report invoice|payout|revenue [--from ISO] [--to ISO] [--format json|csv|pdf] [--out FILE]
                  A billing report from the running marketplace: a client's invoice, a creator's
                  payout statement or the platform's revenue summary; `report --help` says more.
TXT
}

tensafe_report_usage() {
  cat <<'TXT'
Usage: ./tensafe report invoice|payout|revenue [options]

Fetches a billing report for a period of request start times [from, to) from a running marketplace
(./tensafe up), signed in as --user with the password in TENSAFE_PASSWORD (asked for on a terminal).
  invoice   a client organisation's invoice, line items per adapter and per mode (as a client; --admin for any)
  payout    a creator's payout statement, with the creator's and the platform's shares
  revenue   the platform's revenue per adapter, creator, client, node, day and mode (admins)
Totals are sums of the charge ledger in integer micro-units, so they reconcile to it exactly.

Options:
  --from ISO            start, e.g. 2026-11-01T00:00:00Z (default: 30 days before --to)
  --to ISO              end, exclusive (default: now)
  --format json|csv|pdf (default json)
  --out FILE            where to write it (default: standard output; a PDF goes to the server's
                        file name in the current folder)
  --user NAME           who signs in (default: client, creator or admin by report: the demo users)
  --admin               fetch another party's invoice or statement as an admin; needs
                        --organisation SLUG (invoice) or --creator ID (payout)
  --organisation SLUG   the client organisation (invoice; default the user's own)
  --creator ID          the creator (payout with --admin)
  --marketplace URL     default http://127.0.0.1:$TENSAFE_MARKETPLACE_PORT (8080)
TXT
}

cmd_report() {
  local kind="" from="" to="" format=json out="" user="" admin=false organisation="" creator=""
  local marketplace="http://127.0.0.1:${TENSAFE_MARKETPLACE_PORT:-8080}"
  [ $# -gt 0 ] || { tensafe_report_usage >&2; exit 2; }
  case $1 in
    invoice | payout | revenue) kind=$1; shift ;;
    -h | --help | help) tensafe_report_usage; return 0 ;;
    *) tensafe_die "unknown report '$1'; it is invoice, payout or revenue (./tensafe report --help)" ;;
  esac
  while [ $# -gt 0 ]; do
    case $1 in
      --from | --to | --format | --out | --user | --organisation | --creator | --marketplace)
        [ $# -ge 2 ] || tensafe_die "$1 needs a value; run ./tensafe report --help"
        case $1 in
          --from) from=$2 ;; --to) to=$2 ;; --format) format=$2 ;; --out) out=$2 ;;
          --user) user=$2 ;; --organisation) organisation=$2 ;; --creator) creator=$2 ;;
          --marketplace) marketplace=${2%/} ;;
        esac
        shift ;;
      --admin) admin=true ;;
      -h | --help) tensafe_report_usage; return 0 ;;
      *) tensafe_die "unknown option for report: '$1'; run ./tensafe report --help" ;;
    esac
    shift
  done
  case $format in json | csv | pdf) ;; *) tensafe_die "--format must be json, csv or pdf" ;; esac

  local path query=()
  case $kind in
    invoice)
      if [ "$admin" = true ]; then
        [ -n "$organisation" ] || tensafe_die "report invoice --admin needs --organisation SLUG"
        path=/api/admin/reports/invoice
      else
        path=/api/client/reports/invoice
      fi
      [ -z "$organisation" ] || query+=(--data-urlencode "organisation=$organisation")
      [ -n "$user" ] || user=$([ "$admin" = true ] && echo admin || echo client) ;;
    payout)
      if [ "$admin" = true ]; then
        [ -n "$creator" ] || tensafe_die "report payout --admin needs --creator ID"
        path=/api/admin/reports/payout
        query+=(--data-urlencode "creator=$creator")
      else
        [ -z "$creator" ] || tensafe_die "--creator needs --admin (a creator sees their own statement)"
        path=/api/creator/reports/payout
      fi
      [ -n "$user" ] || user=$([ "$admin" = true ] && echo admin || echo creator) ;;
    revenue)
      path=/api/admin/reports/revenue
      [ -n "$user" ] || user=admin ;;
  esac
  [ -z "$from" ] || query+=(--data-urlencode "from=$from")
  [ -z "$to" ] || query+=(--data-urlencode "to=$to")
  query+=(--data-urlencode "format=$format")

  local password=${TENSAFE_PASSWORD:-}
  if [ -z "$password" ]; then
    [ -t 0 ] || tensafe_die "set TENSAFE_PASSWORD to $user's password (no terminal to ask on)"
    read -r -s -p "password for $user: " password
    echo >&2
  fi
  local token_url="http://127.0.0.1:${TENSAFE_KEYCLOAK_PORT:-8180}/realms/tensafe/protocol/openid-connect/token"
  local answer token
  answer=$(curl -sS --max-time 30 -X POST "$token_url" --data-urlencode grant_type=password \
    --data-urlencode client_id=tensafe-web --data-urlencode "username=$user" \
    --data-urlencode "password=$password" 2>&1) \
    || tensafe_die "cannot reach Keycloak at $token_url; is ./tensafe up running? ($answer)"
  token=$(printf '%s' "$answer" | sed -n 's/.*"access_token":"\([^"]*\)".*/\1/p')
  [ -n "$token" ] || tensafe_die "signing in as $user failed: $(printf '%s' "$answer" | head -c 200)"

  local body status target
  body=$(mktemp)
  # shellcheck disable=SC2064
  trap "rm -f '$body'" EXIT
  status=$(curl -sS --max-time 120 -G -o "$body" -w '%{http_code}' -H "Authorization: Bearer $token" \
    "${query[@]}" "$marketplace$path" 2>&1) || tensafe_die "cannot reach the marketplace at $marketplace ($status)"
  if [ "${status:0:1}" != 2 ]; then
    tensafe_die "the marketplace answered $status: $(sed -n 's/.*"detail":"\([^"]*\)".*/\1/p' "$body" | head -n 1)"
  fi
  target=$out
  if [ -z "$target" ] && [ "$format" = pdf ]; then
    target="tensafe-$kind-$(date -u +%Y%m%dT%H%M%SZ).pdf"
  fi
  if [ -z "$target" ] || [ "$target" = - ]; then
    cat "$body"
    [ "$format" = csv ] || echo
  else
    cp "$body" "$target" || tensafe_die "cannot write $target"
    tensafe_say "wrote the $kind report to $target ($(wc -c <"$target") bytes)"
  fi
}
