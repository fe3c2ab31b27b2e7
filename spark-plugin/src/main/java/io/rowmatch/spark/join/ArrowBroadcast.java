package io.rowmatch.spark.join;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

import org.apache.spark.SparkConf;
import org.apache.spark.SparkEnv;
import org.apache.spark.io.CompressionCodec;
import org.apache.spark.io.CompressionCodec$;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;

import io.rowmatch.spark.shuffle.PartitionedBatchEncoder;

/**
 * The value of a Rowmatch broadcast: the build side's rows as Arrow shuffle records (one per input batch),
 * each compressed with Spark's I/O codec. No hash table is built on the driver; each executor decodes the
 * records once into its shared join table ({@link BroadcastJoinTables}). The records are the shuffle's
 * format, so the broadcast carries the same column types the Arrow shuffle does.
 */
public final class ArrowBroadcast implements Serializable {
  private static final long serialVersionUID = 1L;

  /** One partition's share of the broadcast, as its task returns it to the driver. */
  public static final class Part implements Serializable {
    private static final long serialVersionUID = 1L;
    final List<byte[]> records = new ArrayList<>();
    final List<Integer> lengths = new ArrayList<>();
    long rows;
    long unsafeRowBytes;
    long bytes;
  }

  private final byte[][] records;
  private final int[] lengths;
  /** Spark's codec name the records are compressed with, null when they are not. */
  private final String codec;
  private final long rows;
  private final long unsafeRowBytes;
  private final long bytes;

  private ArrowBroadcast(byte[][] records, int[] lengths, String codec, long rows, long unsafeRowBytes, long bytes) {
    this.records = records;
    this.lengths = lengths;
    this.codec = codec;
    this.rows = rows;
    this.unsafeRowBytes = unsafeRowBytes;
    this.bytes = bytes;
  }

  /** Encodes (and, with a codec, compresses) one partition's batches: the executor side of the collect. */
  public static Part encode(Iterator<ColumnarBatch> batches, StructType schema, String codec) {
    PartitionedBatchEncoder encoder = new PartitionedBatchEncoder(schema);
    CompressionCodec compression = codec == null ? null : codec(codec);
    Part part = new Part();
    int[] zeros = new int[0];
    while (batches.hasNext()) {
      ColumnarBatch batch = batches.next();
      int n = batch.numRows();
      if (n == 0) {
        continue;
      }
      if (zeros.length < n) {
        zeros = new int[Math.max(n, zeros.length * 2)];
      }
      encoder.encode(batch, zeros, 1, (p, record) -> {
        byte[] stored = compression == null ? record : compress(compression, record);
        part.records.add(stored);
        part.lengths.add(record.length);
        part.bytes += stored.length;
      });
      part.rows += n;
      part.unsafeRowBytes += encoder.unsafeRowBytes();
    }
    return part;
  }

  /** The driver side: the partitions' records together, in partition order. */
  public static ArrowBroadcast of(Part[] parts, String codec) {
    List<byte[]> records = new ArrayList<>();
    List<Integer> lengths = new ArrayList<>();
    long rows = 0;
    long unsafeRowBytes = 0;
    long bytes = 0;
    for (Part p : parts) {
      records.addAll(p.records);
      lengths.addAll(p.lengths);
      rows += p.rows;
      unsafeRowBytes += p.unsafeRowBytes;
      bytes += p.bytes;
    }
    int[] lens = new int[lengths.size()];
    for (int i = 0; i < lens.length; i++) {
      lens[i] = lengths.get(i);
    }
    return new ArrowBroadcast(records.toArray(new byte[0][]), lens, codec, rows, unsafeRowBytes, bytes);
  }

  public long rows() {
    return rows;
  }

  /** The rows' size as Spark's UnsafeRows: the broadcast's "data size", checked against Spark's limit. */
  public long unsafeRowBytes() {
    return unsafeRowBytes;
  }

  /** Bytes held, as encoded and compressed. */
  public long bytes() {
    return bytes;
  }

  /** The records, each decompressed when it is reached. */
  public Iterator<byte[]> records() {
    CompressionCodec compression = codec == null ? null : codec(codec);
    return new Iterator<>() {
      private int next;

      @Override
      public boolean hasNext() {
        return next < records.length;
      }

      @Override
      public byte[] next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        int i = next++;
        return compression == null ? records[i] : decompress(compression, records[i], lengths[i]);
      }
    };
  }

  private static CompressionCodec codec(String name) {
    SparkEnv env = SparkEnv.get();
    SparkConf conf = env != null ? env.conf() : new SparkConf(false);
    return CompressionCodec$.MODULE$.createCodec(conf, name);
  }

  private static byte[] compress(CompressionCodec codec, byte[] record) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(record.length / 2 + 64);
    try (OutputStream out = codec.compressedOutputStream(bytes)) {
      out.write(record);
    } catch (IOException e) {
      throw new UncheckedIOException("compressing a broadcast record", e);
    }
    return bytes.toByteArray();
  }

  private static byte[] decompress(CompressionCodec codec, byte[] stored, int length) {
    byte[] record = new byte[length];
    try (InputStream in = codec.compressedInputStream(new ByteArrayInputStream(stored))) {
      int at = 0;
      while (at < length) {
        int n = in.read(record, at, length - at);
        if (n < 0) {
          throw new IOException("broadcast record ends after " + at + " of its " + length + " bytes");
        }
        at += n;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("decompressing a broadcast record", e);
    }
    return record;
  }
}
