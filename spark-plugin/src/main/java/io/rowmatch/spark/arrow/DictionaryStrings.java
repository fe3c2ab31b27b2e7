package io.rowmatch.spark.arrow;

import java.util.Arrays;

import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.spark.sql.execution.vectorized.Dictionary;
import org.apache.spark.unsafe.Platform;

/**
 * The string values of a reader's dictionary (one Parquet column chunk), each decoded once into one byte
 * array: values back to back, then {@link #SLACK} spare bytes. A batch of dictionary ids then becomes Arrow
 * bytes with one 8-byte move per value of up to 8 bytes (a few for longer ones) instead of a byte[] lookup
 * and a memory-copy call per row: short dictionary strings (codes, flags, country names) are the common case.
 */
public final class DictionaryStrings {
  /** Spare bytes after the last value here, and what a destination must hold past its last value. */
  static final int SLACK = 8;
  /** Longer values go through one memory copy instead of a loop of words. */
  private static final int WORD_LOOP_MAX = 64;

  private Dictionary source;
  private Object sourceIdentity;
  private int[] start = new int[0]; // -1: not decoded yet
  private int[] length = new int[0];
  private byte[] bytes = new byte[256];
  private int used;

  /**
   * Switches to d, forgetting the values of an earlier dictionary (a new column chunk has its own); the same
   * dictionary behind a new per-batch wrapper keeps them ({@link SparkColumnMemory#dictionarySource}).
   */
  public void use(Dictionary d) {
    source = d;
    Object identity = SparkColumnMemory.dictionarySource(d);
    if (!identity.equals(sourceIdentity)) {
      sourceIdentity = identity;
      Arrays.fill(start, -1);
      used = 0;
    }
  }

  /** The byte length of the value of id, decoding it on first use. */
  public int length(int id) {
    if (id < 0 || id >= start.length || start[id] < 0) {
      decode(id);
    }
    return length[id];
  }

  /** Where the value of id (decoded already by {@link #length}) starts in {@link #bytes}. */
  public int start(int id) {
    return start[id];
  }

  /**
   * The decoded values back to back, at least {@link #SLACK} bytes after the last: a new array when a decode
   * grew it, so take it after the {@link #length} calls of a batch.
   */
  public byte[] bytes() {
    return bytes;
  }

  /**
   * Writes the value of id (decoded already by {@link #length}) at address {@code to}, and may write up to
   * {@link #SLACK} - 1 bytes past it (later values overwrite them). Returns its length.
   */
  int copyTo(int id, long to) {
    int len = length[id];
    long from = Platform.BYTE_ARRAY_OFFSET + start[id];
    if (len <= WORD_LOOP_MAX) {
      for (int k = 0; k < len; k += 8) {
        MemoryUtil.putLong(to + k, Platform.getLong(bytes, from + k));
      }
    } else {
      Platform.copyMemory(bytes, from, null, to, len);
    }
    return len;
  }

  private void decode(int id) {
    if (id < 0) {
      throw new IllegalStateException("negative dictionary id " + id);
    }
    if (id >= start.length) {
      int size = Math.max(id + 1, 2 * start.length);
      int old = start.length;
      start = Arrays.copyOf(start, size);
      length = Arrays.copyOf(length, size);
      Arrays.fill(start, old, size, -1);
    }
    byte[] value = source.decodeToBinary(id);
    int need = used + value.length + SLACK;
    if (need > bytes.length) {
      bytes = Arrays.copyOf(bytes, Math.max(need, 2 * bytes.length));
    }
    System.arraycopy(value, 0, bytes, used, value.length);
    start[id] = used;
    length[id] = value.length;
    used += value.length;
  }
}
