package io.rowmatch.bench.spark;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.apache.commons.io.FileUtils;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.apache.spark.sql.execution.datasources.RecordReaderIterator;
import org.apache.spark.sql.execution.datasources.parquet.VectorizedParquetRecordReader;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import io.rowmatch.spark.scan.ParquetBatches;

/**
 * Rowmatch's Parquet page decoder against Spark's vectorized reader, reading one snappy file of 240,000 rows (a
 * TPC-DS store_sales file's size) into Spark's column vectors: four nullable columns shaped like store_sales's
 * (int keys of 18,000 values and int quantities of 100, dictionary-encoded; a decimal(7,2) as int; a long of random
 * values, plain), with {@code nullShare} of each column's values null (TPC-DS's fact columns hold about 4.5%).
 * Both open the file the same way; only the page decoding differs. One operation reads the whole file.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(1)
@Warmup(iterations = 4, time = 2)
@Measurement(iterations = 6, time = 2)
public class ParquetDecodeBench {
  private static final int ROWS = 240_000;
  private static final MessageType SCHEMA = MessageTypeParser.parseMessageType("message m {"
      + " optional int32 item; optional int32 quantity; optional int32 price (DECIMAL(7,2)); optional int64 ticket; }");

  @Param({"0.0", "0.045"})
  public double nullShare;

  private File dir;
  private String file;

  @Setup(Level.Trial)
  public void writeFile() throws IOException {
    dir = Files.createTempDirectory("rowmatch-parquet-bench").toFile();
    file = new File(dir, "data.parquet").getPath();
    Random r = new Random(42);
    SimpleGroupFactory groups = new SimpleGroupFactory(SCHEMA);
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new Path(file)).withType(SCHEMA)
        .withCompressionCodec(CompressionCodecName.SNAPPY).withConf(new Configuration()).build()) {
      for (int i = 0; i < ROWS; i++) {
        Group g = groups.newGroup();
        if (r.nextDouble() >= nullShare) {
          g.add("item", r.nextInt(18_000) + 1);
        }
        if (r.nextDouble() >= nullShare) {
          g.add("quantity", r.nextInt(100) + 1);
        }
        if (r.nextDouble() >= nullShare) {
          g.add("price", r.nextInt(20_000));
        }
        if (r.nextDouble() >= nullShare) {
          g.add("ticket", r.nextLong());
        }
        w.write(g);
      }
    }
  }

  @TearDown(Level.Trial)
  public void deleteFile() throws IOException {
    FileUtils.deleteDirectory(dir);
  }

  private VectorizedParquetRecordReader open() throws IOException {
    VectorizedParquetRecordReader reader = new VectorizedParquetRecordReader(false, 4096);
    reader.initialize(file, null);
    reader.initBatch(null, null);
    reader.enableReturningBatches();
    return reader;
  }

  @Benchmark
  public long sparkReader() throws IOException {
    long rows = 0;
    try (VectorizedParquetRecordReader reader = open()) {
      while (reader.nextBatch()) {
        rows += reader.resultBatch().numRows();
      }
    }
    return rows;
  }

  @Benchmark
  public long rowmatchDecoder() throws IOException {
    long rows = 0;
    scala.collection.Iterator<Object> batches = ParquetBatches.over(new RecordReaderIterator<>(open()));
    if (!(batches instanceof ParquetBatches)) {
      throw new IllegalStateException("the decoder did not take the file: this would measure Spark's reader");
    }
    try {
      while (batches.hasNext()) {
        rows += ((ColumnarBatch) batches.next()).numRows();
      }
    } finally {
      ((java.io.Closeable) batches).close();
    }
    return rows;
  }
}
