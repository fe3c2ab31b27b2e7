package io.rowmatch.core.hash;

import io.rowmatch.core.compare.RawMemory;

/**
 * The mixing functions behind {@link RowHasher}: a 64-bit finalizer for fixed-width values, a
 * word-at-a-time byte hash (the short-input path of xxHash64) for variable-width values, and an
 * order-dependent combine for columns and nested elements.
 */
public final class HashMixer {
  private HashMixer() {}

  private static final long P1 = 0x9E3779B185EBCA87L;
  private static final long P2 = 0xC2B2AE3D27D4EB4FL;
  private static final long P3 = 0x165667B19E3779F9L;
  private static final long P4 = 0x85EBCA77C2B2AE63L;
  private static final long P5 = 0x27D4EB2F165667C5L;
  /** Keeps the value 0 from hashing to 0 (the finalizer's fixed point). */
  private static final long SEED = 0x2545F4914F6CDD1DL;

  /** Hash of a null value, at the top level and inside nested values alike. */
  public static final long NULL_HASH = 0x6A09E667F3BCC909L;

  /** A strong 64-bit finalizer (murmur3 fmix64) over a seeded value: sequential inputs spread well. */
  public static long mix(long v) {
    long h = v ^ SEED;
    h ^= h >>> 33;
    h *= 0xFF51AFD7ED558CCDL;
    h ^= h >>> 33;
    h *= 0xC4CEB9FE1A85EC53L;
    h ^= h >>> 33;
    return h;
  }

  /** Folds the next column's (or element's) hash into an accumulated one; the order matters. */
  public static long combine(long acc, long h) {
    return Long.rotateLeft(acc * P1, 31) ^ h;
  }

  /**
   * Hash of {@code length} bytes at {@code address}, which the caller proved readable. Whole words, then the
   * last word read again overlapping the previous one (and two overlapping ints below 8 bytes), so short
   * values of varying length take no byte loop and no unpredictable branch per byte.
   */
  public static long bytes(long address, long length) {
    long h = SEED + P5 + length * P1;
    if (length >= 8) {
      long a = address;
      long n = length;
      while (n > 8) {
        h = round(h, RawMemory.getLong(a));
        a += 8;
        n -= 8;
      }
      h = round(h, RawMemory.getLong(address + length - 8));
    } else if (length >= 4) {
      long lo = RawMemory.getInt(address) & 0xFFFFFFFFL;
      long hi = RawMemory.getInt(address + length - 4) & 0xFFFFFFFFL;
      h = round(h, (hi << 32) | lo);
    } else if (length > 0) {
      long b0 = RawMemory.getByte(address) & 0xFFL;
      long b1 = RawMemory.getByte(address + (length >>> 1)) & 0xFFL;
      long b2 = RawMemory.getByte(address + length - 1) & 0xFFL;
      h = round(h, b0 | (b1 << 8) | (b2 << 16));
    }
    h ^= h >>> 33;
    h *= P2;
    h ^= h >>> 29;
    h *= P3;
    h ^= h >>> 32;
    return h;
  }

  private static long round(long h, long word) {
    long k = Long.rotateLeft(word * P2, 31) * P1;
    return Long.rotateLeft(h ^ k, 27) * P1 + P4;
  }
}
