package io.sstfilter.tests;

import static io.sstfilter.tests.Workload.ABSENT;
import static io.sstfilter.tests.Workload.KEYS;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.sstfilter.SstFilter;
import java.io.File;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.Statistics;

/**
 * An absent-key Get from Java reads the data blocks one from C++ reads: the
 * same settled multi-level DB, the same policy id, the same absent keys, from
 * Java through this jar and from C++ (absent_gets.cc, its path in the system
 * property sstfilter.absent_gets) through RocksDB's own library.
 */
public class JavaAndCppReadsTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  static final String ID = "sstfilter.LevelAware:10";

  @Test
  public void absentGetReadsTheSameDataBlocksFromJavaAndCpp() throws Exception {
    final File dir = tmp.newFolder("db");
    final Workload.AbsentGets fromJava;
    try (Statistics stats = new Statistics();
         SstFilter filter = new SstFilter(ID);
         Options options = ThreeWaysTest.multiLevelOptions(stats).setTableFormatConfig(
             new BlockBasedTableConfig().setFilterPolicy(filter));
         RocksDB db = RocksDB.open(options, dir.getPath())) {
      ThreeWaysTest.fillAndCheck(db, stats, 0, KEYS);
      fromJava = Workload.absentGets(db, stats);
      db.closeE();
    }

    final String program = System.getProperty("sstfilter.absent_gets");
    assertTrue("-Dsstfilter.absent_gets names the C++ program", program != null);
    final Process process =
        new ProcessBuilder(program, dir.getPath(), ID, Integer.toString(ABSENT))
            .redirectErrorStream(true)
            .start();
    final String output = Workload.readAll(process.getInputStream());
    assertEquals("C++ side's exit status; output: " + output, 0, process.waitFor());
    final Matcher m = Pattern.compile("data_blocks_per_get ([0-9.]+) useful ([0-9]+)").matcher(output);
    assertTrue(output, m.find());
    final double cpp = Double.parseDouble(m.group(1));
    final long cppUseful = Long.parseLong(m.group(2));
    System.out.printf("%s, %d absent Gets: data blocks read per Get: Java %.5f, C++ %.5f "
            + "(ratio %.4f); bloom.filter.useful: Java %d, C++ %d%n",
        ID, ABSENT, fromJava.dataBlocksPerGet(), cpp, fromJava.dataBlocksPerGet() / cpp, fromJava.useful,
        cppUseful);
    assertTrue("C++ side read data blocks: " + output, cpp > 0);
    assertEquals("Java within 5% of C++", 1.0, fromJava.dataBlocksPerGet() / cpp, 0.05);
    assertEquals("the same filters said no", cppUseful, fromJava.useful);
  }
}
