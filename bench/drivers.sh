# Sourced by the bench scripts: the driver command line that times a factorization.
#   driver_of OP BINDIR   (OP: getrf, getrf_nopiv, potrf, geqrf, gesv_rbt; returns 1 for another OP)
# geqrf factors only (-nrhs 0): the least-squares solve is not part of what is compared.
driver_of() {
  case $1 in
    getrf) echo "$2/starpu_lu" ;;
    getrf_nopiv) echo "$2/starpu_lu -nopiv" ;;
    potrf) echo "$2/starpu_cholesky" ;;
    geqrf) echo "$2/starpu_qr -nrhs 0" ;;
    gesv_rbt) echo "$2/starpu_rbt" ;;
    *) return 1 ;;
  esac
}
