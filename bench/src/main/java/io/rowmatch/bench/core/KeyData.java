package io.rowmatch.bench.core;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;

/**
 * The benchmark keys: key id {@code k} is BigInt {@code 31k + 7}, alone or paired with a VarChar of 10-20 ASCII
 * bytes or a second BigInt, each unique to {@code k}. Rows pick key ids deterministically, so every
 * implementation sees the same rows.
 */
public final class KeyData {
  private KeyData() {}

  public static final int BATCH = 4096;

  /** The key columns: a BigInt, then nothing, a VarChar or another BigInt (a JMH parameter's value, lower case). */
  public enum Shape {
    BIGINT, BIGINT_VARCHAR, BIGINT_BIGINT;

    public static Shape of(String param) {
      return valueOf(param.toUpperCase(java.util.Locale.ROOT));
    }
  }

  public static long bigint(long k) {
    return 31 * k + 7;
  }

  /** The second BigInt of key id k: unique to k, spread over the whole range. */
  public static long secondBigint(long k) {
    return k * 0x9E3779B97F4A7C15L;
  }

  /** 10 to 20 bytes: the id in base 36, then filler that depends on the id. */
  public static byte[] varchar(long k) {
    int len = 10 + (int) (k % 11);
    byte[] out = new byte[len];
    String id = Long.toString(k, 36);
    int i = 0;
    for (; i < id.length(); i++) {
      out[i] = (byte) id.charAt(i);
    }
    long x = k * 0x9E3779B97F4A7C15L;
    for (; i < len; i++) {
      out[i] = (byte) ('a' + (int) ((x >>> (i * 3)) & 15));
    }
    out[id.length()] = '-';
    return out;
  }

  /** Key id of row {@code i} of {@code rows}: a permutation when {@code distinct >= rows}, else uniform-ish. */
  public static long keyOf(long i, long distinct) {
    long x = (i * 2654435761L) % distinct;
    return x < 0 ? x + distinct : x;
  }

  /** Probe key ids: spread over {@code [0, range)}, independent of {@link #keyOf}. */
  public static long probeKeyOf(long i, long range) {
    long x = i * 0xBF58476D1CE4E5B9L;
    x ^= x >>> 31;
    return Long.remainderUnsigned(x, range);
  }

  public interface KeyIds {
    long of(long row);
  }

  /** Arrow batches of the key columns of the given shape. */
  public static List<List<FieldVector>> arrowBatches(BufferAllocator allocator, int rows, KeyIds ids, Shape shape) {
    List<List<FieldVector>> batches = new ArrayList<>();
    for (int start = 0; start < rows; start += BATCH) {
      int n = Math.min(BATCH, rows - start);
      BigIntVector a = new BigIntVector("a", allocator);
      a.allocateNew(n);
      VarCharVector b = shape == Shape.BIGINT_VARCHAR ? new VarCharVector("b", allocator) : null;
      if (b != null) {
        b.allocateNew(20L * n, n);
      }
      BigIntVector c = shape == Shape.BIGINT_BIGINT ? new BigIntVector("c", allocator) : null;
      if (c != null) {
        c.allocateNew(n);
      }
      for (int i = 0; i < n; i++) {
        long k = ids.of(start + i);
        a.set(i, bigint(k));
        if (b != null) {
          b.setSafe(i, varchar(k));
        }
        if (c != null) {
          c.set(i, secondBigint(k));
        }
      }
      a.setValueCount(n);
      List<FieldVector> batch = new ArrayList<>();
      batch.add(a);
      if (b != null) {
        b.setValueCount(n);
        batch.add(b);
      }
      if (c != null) {
        c.setValueCount(n);
        batch.add(c);
      }
      batches.add(batch);
    }
    return batches;
  }

  public static String string(long k) {
    return new String(varchar(k), StandardCharsets.US_ASCII);
  }
}
