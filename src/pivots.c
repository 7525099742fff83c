/* Composing an LU panel's row interchanges into one permutation (see pivots.h). */
#include <stdlib.h>
#include "internal.h"
#include "pivots.h"

void ss_piv_compose(int *v, int offset)
{
    int npiv = v[0];
    const int *ipiv = ss_piv_ipiv(v);
    int *moved = ss_piv_moved(v), *from = ss_piv_from(v);
    /* Rows 0..npiv-1 all take part, in slots 0..npiv-1. A pivot row below them
     * takes the next slot the first time it is named; an open-addressing table
     * (4*npiv entries, power of two) finds its slot again. */
    int nmoved = npiv, size = 4;
    while (size < 4 * npiv)
        size *= 2;
    int *key = malloc((size_t)size * 2 * sizeof *key), *val = key + size;
    for (int h = 0; h < size; h++)
        key[h] = -1;
    for (int j = 0; j < npiv; j++) {
        moved[j] = j;
        from[j] = j;
    }
    for (int i = 0; i < npiv; i++) {
        int p = ipiv[i] - 1 - offset, slot;
        if (p == i)
            continue;
        if (p < npiv) {
            slot = p;
        } else {
            unsigned h = ((unsigned)p * 2654435761u) & (unsigned)(size - 1);
            while (key[h] != -1 && key[h] != p)
                h = (h + 1) & (unsigned)(size - 1);
            if (key[h] == -1) {
                key[h] = p;
                val[h] = nmoved;
                moved[nmoved] = p;
                from[nmoved] = p;
                nmoved++;
            }
            slot = val[h];
        }
        int t = from[i];
        from[i] = from[slot];
        from[slot] = t;
    }
    free(key);
    v[1] = nmoved;
}

void ss_piv_finish_panel(int *v, int npiv, int offset)
{
    v[0] = npiv;
    for (int i = 0; i < npiv; i++)
        ss_piv_ipiv(v)[i] += offset;
    ss_piv_compose(v, offset);
}
