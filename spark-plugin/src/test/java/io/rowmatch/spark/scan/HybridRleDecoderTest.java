package io.rowmatch.spark.scan;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.Arrays;
import java.util.Random;

import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridEncoder;
import org.junit.jupiter.api.Test;

/**
 * The decoder against parquet-mr's own encoder: random sequences (long repeated runs, short ones, no runs) of every
 * bit width 0..32 and of 0/1/7/8/9/63/64/65/1000/5000 values, read in random slices through {@code read} and
 * through {@code runLength}/{@code skip}; damaged input (truncated, random bytes) gives an IOException naming the
 * column or, for a truncated last packed run, the zeros parquet-mr reads there, never an index error.
 */
class HybridRleDecoderTest {
  private static final int[] SIZES = {0, 1, 7, 8, 9, 63, 64, 65, 1000, 5000};

  private static int[] values(Random r, int n, int width, double repeat) {
    long bound = width == 0 ? 1 : 1L << width;
    int[] v = new int[n];
    for (int i = 0; i < n; i++) {
      v[i] = i > 0 && r.nextDouble() < repeat ? v[i - 1] : (int) (r.nextLong() & (bound - 1));
    }
    return v;
  }

  private static byte[] encode(int[] v, int width) throws IOException {
    RunLengthBitPackingHybridEncoder e = new RunLengthBitPackingHybridEncoder(width, 64, 1 << 20,
        new HeapByteBufferAllocator());
    for (int x : v) {
      e.writeInt(x);
    }
    return e.toBytes().toByteArray();
  }

  @Test
  void decodesWhatParquetEncodesAtEveryWidthAndSize() throws IOException {
    Random r = new Random(42);
    for (int width = 0; width <= 32; width++) {
      for (int n : SIZES) {
        for (double repeat : new double[] {0.0, 0.7, 0.98}) {
          int[] v = values(r, n, width, repeat);
          byte[] bytes = encode(v, width);
          // Padded on both sides: the decoder must keep to its range.
          byte[] padded = new byte[bytes.length + 11];
          Arrays.fill(padded, (byte) 0x5a);
          System.arraycopy(bytes, 0, padded, 3, bytes.length);
          HybridRleDecoder d = new HybridRleDecoder("c");
          d.init(padded, 3, 3 + bytes.length, width);
          int[] got = new int[n];
          int at = 0;
          while (at < n) {
            int k = Math.min(n - at, 1 + r.nextInt(70));
            if (r.nextBoolean()) {
              int run = d.runLength(k);
              if (d.repeated()) {
                Arrays.fill(got, at, at + run, d.repeatedValue());
                d.skip(run);
              } else {
                d.read(got, at, run);
              }
              k = run;
            } else {
              d.read(got, at, k);
            }
            at += k;
          }
          assertArrayEquals(v, got, "width " + width + ", " + n + " values, repeat " + repeat);
        }
      }
    }
  }

  @Test
  void damagedInputFailsWithAnIoExceptionNamingTheColumn() throws IOException {
    Random r = new Random(7);
    for (int width : new int[] {1, 5, 13, 32}) {
      int[] v = values(r, 500, width, 0.5);
      byte[] bytes = encode(v, width);
      for (int cut = 0; cut < bytes.length; cut += 1 + bytes.length / 40) {
        HybridRleDecoder d = new HybridRleDecoder("col_x of f.parquet");
        d.init(bytes, 0, cut, width);
        int[] got = new int[v.length];
        try {
          d.read(got, 0, v.length); // a truncated last packed run reads on as zeros, as parquet-mr reads it
        } catch (IOException e) {
          assertTrue(e.getMessage().contains("col_x of f.parquet"), e.getMessage());
        }
      }
    }
    for (int trial = 0; trial < 2000; trial++) {
      byte[] junk = new byte[r.nextInt(40)];
      r.nextBytes(junk);
      HybridRleDecoder d = new HybridRleDecoder("c");
      d.init(junk, 0, junk.length, r.nextInt(33));
      try {
        d.read(new int[300], 0, 300);
      } catch (IOException expected) {
        assertTrue(expected.getMessage().startsWith("malformed Parquet"));
      }
    }
    HybridRleDecoder d = new HybridRleDecoder("c");
    assertThrows(IOException.class, () -> d.init(new byte[4], 0, 4, 33));
    assertThrows(IOException.class, () -> d.init(new byte[4], 2, 5, 3));
    d.init(new byte[0], 0, 0, 3);
    IOException empty = assertThrows(IOException.class, () -> d.read(new int[1], 0, 1));
    assertTrue(empty.getMessage().contains("no more runs"));
  }
}
