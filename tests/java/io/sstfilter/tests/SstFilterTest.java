package io.sstfilter.tests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.sstfilter.SstFilter;
import org.junit.Test;
import org.rocksdb.RocksDBException;

/** SstFilter itself: the ids it takes and refuses. */
public class SstFilterTest {
  @Test
  public void everySstfilterPolicyIsMadeWithItsCanonicalId() throws RocksDBException {
    final String[][] ids = {
        {"sstfilter.BlockedBloom:10", "sstfilter.BlockedBloom:10"},
        {"sstfilter.Cuckoo:12", "sstfilter.Cuckoo:12"},
        {"sstfilter.Hybrid:10", "sstfilter.Hybrid:10:0"},
        {"sstfilter.LevelAware:10", "sstfilter.LevelAware:10:10"},
        {"sstfilter.LevelAware:9.5:8:cpu_lean", "sstfilter.LevelAware:9.5:8:cpu_lean"},
    };
    for (final String[] id : ids) {
      try (SstFilter filter = new SstFilter(id[0]);
           SstFilter again = new SstFilter(filter.id())) {
        assertEquals(id[0], id[1], filter.id());
        assertEquals("the canonical id makes the same policy", id[1], again.id());
      }
    }
  }

  @Test
  public void rocksdbsOwnIdsAreTaken() throws RocksDBException {
    try (SstFilter filter = new SstFilter("ribbonfilter:10")) {
      assertTrue(filter.id(), filter.id().startsWith("ribbonfilter:10"));
    }
  }

  @Test
  public void badIdThrowsRocksDBExceptionNamingIt() {
    final String[] bad = {"sstfilter.LevelAware:abc", "sstfilter.Cuckoo:2", "sstfilter.Nope:10",
        "sstfilter.", "no_such_filter:10", "", "nullptr",
        "id=sstfilter.Cuckoo:12;fingerprint_bits=99"};
    for (final String id : bad) {
      try (SstFilter filter = new SstFilter(id)) {
        fail("\"" + id + "\" made " + filter.id());
      } catch (final RocksDBException e) {
        assertTrue(e.getMessage(), e.getMessage().contains("\"" + id + "\""));
      }
    }
  }

  @Test
  public void nullIdThrowsRocksDBException() {
    try (SstFilter filter = new SstFilter(null)) {
      fail("null made " + filter.id());
    } catch (final RocksDBException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("null"));
    }
  }

  @Test(expected = IllegalStateException.class)
  public void closedFilterHasNoId() throws RocksDBException {
    final SstFilter filter = new SstFilter("sstfilter.BlockedBloom:10");
    filter.close();
    filter.id();
  }
}
