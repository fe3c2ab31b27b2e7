package io.rowmatch.bench.core;

import java.util.Objects;

/** The boxed-key anchor's key: what a plain Java HashMap of (BigInt, VarChar or BigInt) keys holds. */
public final class BoxedKey {
  final long a;
  /** A String, a Long, or null for a one-column key. */
  final Object b;

  BoxedKey(long a, Object b) {
    this.a = a;
    this.b = b;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof BoxedKey)) {
      return false;
    }
    BoxedKey k = (BoxedKey) o;
    return a == k.a && Objects.equals(b, k.b);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(a) * 31 + (b == null ? 0 : b.hashCode());
  }
}
