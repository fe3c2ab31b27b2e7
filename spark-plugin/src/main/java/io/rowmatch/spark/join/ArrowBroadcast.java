package io.rowmatch.spark.join;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
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
 * written one after the other into chunks of up to {@link #CHUNK_BYTES}, each chunk compressed as one stream
 * with Spark's I/O codec. A filtered build side arrives as many small batches (a selective dimension filter
 * keeps tens of rows of each scan batch): one codec stream per chunk, not per record, keeps the codec's
 * buffers and headers from costing more than the rows. No hash table is built on the driver; each executor
 * decodes the records once into its shared join table ({@link BroadcastJoinTables}). The records are the
 * shuffle's format, so the broadcast carries the same column types the Arrow shuffle does.
 */
public final class ArrowBroadcast implements Serializable {
  private static final long serialVersionUID = 2L;

  /** Uncompressed bytes after which a chunk is closed and the next record starts another. */
  static final int CHUNK_BYTES = 4 << 20;

  /**
   * One partition's share of the broadcast, as its task returns it to the driver: chunks of records, each
   * record a 4-byte length (a {@link DataOutputStream} int) and its bytes.
   */
  public static final class Part implements Serializable {
    private static final long serialVersionUID = 2L;
    final List<byte[]> chunks = new ArrayList<>();
    final List<Integer> chunkRecords = new ArrayList<>();
    long rows;
    long unsafeRowBytes;
    long bytes;
  }

  private final byte[][] chunks;
  /** How many records each chunk holds. */
  private final int[] chunkRecords;
  /** Spark's codec name the chunks are compressed with, null when they are not. */
  private final String codec;
  private final long rows;
  private final long unsafeRowBytes;
  private final long bytes;

  private ArrowBroadcast(byte[][] chunks, int[] chunkRecords, String codec, long rows, long unsafeRowBytes,
      long bytes) {
    this.chunks = chunks;
    this.chunkRecords = chunkRecords;
    this.codec = codec;
    this.rows = rows;
    this.unsafeRowBytes = unsafeRowBytes;
    this.bytes = bytes;
  }

  /** Encodes (and, with a codec, compresses) one partition's batches: the executor side of the collect. */
  public static Part encode(Iterator<ColumnarBatch> batches, StructType schema, String codec) {
    PartitionedBatchEncoder encoder = new PartitionedBatchEncoder(schema);
    Part part = new Part();
    try (ChunkWriter chunk = new ChunkWriter(codec == null ? null : codec(codec), part)) {
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
        encoder.encode(batch, zeros, 1, (p, record) -> chunk.write(record));
        part.rows += n;
        part.unsafeRowBytes += encoder.unsafeRowBytes();
      }
      chunk.endChunk();
    }
    return part;
  }

  /** The driver side: the partitions' chunks together, in partition order. */
  public static ArrowBroadcast of(Part[] parts, String codec) {
    List<byte[]> chunks = new ArrayList<>();
    List<Integer> counts = new ArrayList<>();
    long rows = 0;
    long unsafeRowBytes = 0;
    long bytes = 0;
    for (Part p : parts) {
      chunks.addAll(p.chunks);
      counts.addAll(p.chunkRecords);
      rows += p.rows;
      unsafeRowBytes += p.unsafeRowBytes;
      bytes += p.bytes;
    }
    int[] records = new int[counts.size()];
    for (int i = 0; i < records.length; i++) {
      records[i] = counts.get(i);
    }
    return new ArrowBroadcast(chunks.toArray(new byte[0][]), records, codec, rows, unsafeRowBytes, bytes);
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

  /**
   * The records in the order they were written. A chunk is read whole when it is reached (at most
   * {@link #CHUNK_BYTES} and one record) and its stream closed at once: a codec stream may hold native memory.
   */
  public Iterator<byte[]> records() {
    CompressionCodec compression = codec == null ? null : codec(codec);
    return new Iterator<>() {
      private int chunk = -1;
      private byte[][] read = new byte[0][];
      private int at;

      @Override
      public boolean hasNext() {
        while (at == read.length && chunk + 1 < chunks.length) {
          chunk++;
          read = readChunk(compression, chunk);
          at = 0;
        }
        return at < read.length;
      }

      @Override
      public byte[] next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        byte[] record = read[at];
        read[at++] = null;
        return record;
      }
    };
  }

  private byte[][] readChunk(CompressionCodec compression, int chunk) {
    byte[][] records = new byte[chunkRecords[chunk]][];
    InputStream raw = new ByteArrayInputStream(chunks[chunk]);
    try (DataInputStream in = new DataInputStream(compression == null ? raw : compression.compressedInputStream(raw))) {
      for (int r = 0; r < records.length; r++) {
        int length = in.readInt();
        if (length < 0) {
          throw new IOException("record " + r + " claims " + length + " bytes");
        }
        records[r] = new byte[length];
        in.readFully(records[r]);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading broadcast chunk " + chunk + " of " + chunks.length + " ("
          + records.length + " records)", e);
    }
    return records;
  }

  private static CompressionCodec codec(String name) {
    SparkEnv env = SparkEnv.get();
    SparkConf conf = env != null ? env.conf() : new SparkConf(false);
    return CompressionCodec$.MODULE$.createCodec(conf, name);
  }

  /**
   * Writes records into the current chunk of a part, ending it past {@link #CHUNK_BYTES}. Closing it drops a
   * chunk left unended (the task failed): a codec stream may hold native memory.
   */
  private static final class ChunkWriter implements AutoCloseable {
    private final CompressionCodec codec;
    private final Part part;
    private ByteArrayOutputStream stored;
    private DataOutputStream out;
    private long written;
    private int records;

    ChunkWriter(CompressionCodec codec, Part part) {
      this.codec = codec;
      this.part = part;
    }

    void write(byte[] record) {
      try {
        if (out == null) {
          stored = new ByteArrayOutputStream(Math.min(CHUNK_BYTES, Math.max(1024, record.length / 2 + 64)));
          out = new DataOutputStream(codec == null ? stored : codec.compressedOutputStream(stored));
        }
        out.writeInt(record.length);
        out.write(record);
      } catch (IOException e) {
        throw new UncheckedIOException("writing a broadcast record", e);
      }
      records++;
      written += 4L + record.length;
      if (written >= CHUNK_BYTES) {
        endChunk();
      }
    }

    /** Ends the current chunk and adds it to the part, if a record was written to it. */
    void endChunk() {
      if (out == null) {
        return;
      }
      DataOutputStream ending = out;
      out = null;
      try {
        ending.close();
      } catch (IOException e) {
        throw new UncheckedIOException("ending a broadcast chunk", e);
      }
      byte[] chunk = stored.toByteArray();
      part.chunks.add(chunk);
      part.chunkRecords.add(records);
      part.bytes += chunk.length;
      stored = null;
      written = 0;
      records = 0;
    }

    @Override
    public void close() {
      if (out != null) {
        try {
          out.close();
        } catch (IOException e) {
          // the chunk is dropped with the failed task; only its codec's memory matters here
        } finally {
          out = null;
        }
      }
    }
  }
}
