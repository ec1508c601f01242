package io.tensafe.kernels.ring;

/**
 * The precomputed tables of one negacyclic NTT, shared by its loop implementations ({@link
 * ScalarNtt}, {@link VectorNtt}). Built once by {@link NegacyclicNtt} and never written after: the
 * loops read the arrays in place.
 *
 * @param degree the ring degree n, a power of two
 * @param q the prime modulus, {@code q ≡ 1 (mod 2n)}, {@code 4q < 2^62}
 * @param forward index k in [1, n): {@code psi^bitrev(k)} in [0, q) (index 0 unused); stage m,
 *     group i of the forward transform uses index {@code m + i}
 * @param forwardShoup Shoup companions of {@code forward}, index for index
 * @param inverse index k: the inverse of {@code forward[k]}
 * @param inverseShoup Shoup companions of {@code inverse}
 * @param inverseDegree {@code n^-1 mod q}, in [1, q)
 * @param inverseDegreeShoup its Shoup companion
 */
record NttTables(
    int degree,
    long q,
    long[] forward,
    long[] forwardShoup,
    long[] inverse,
    long[] inverseShoup,
    long inverseDegree,
    long inverseDegreeShoup) {}
