package lakerep.crashpoints;

import io.delta.storage.HDFSLogStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.Iterator;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * Delta's store for file: paths (HDFSLogStore) that journals each Delta commit as two durable
 * events, "before" and "after" its _delta_log file is written, and kills the runner there.
 *
 * <p>The journal (LAKEREP_CRASHPOINT_JOURNAL) is shared with the runner's Python side: a line per
 * event, numbered from 1. At the event numbered LAKEREP_CRASHPOINT_AT the runner's process (this
 * JVM's parent) is killed (SIGKILL, as kill -9, so nothing of it runs after), then this JVM halts.
 * Each setting is read from a system property of the same name first: a process that restarted a
 * lake and checked it sets them through its gateway before it runs the next run under test.
 * Only commits go through here: a commit file written once (overwrite false); checkpoints, _last_*
 * and .crc files are rewritable hints Delta can do without.
 */
public class HaltingLogStore extends HDFSLogStore {
    private static final Pattern COMMIT = Pattern.compile("\\d{20}\\.json");

    public HaltingLogStore(Configuration conf) {
        super(conf);
    }

    @Override
    public void write(Path path, Iterator<String> actions, Boolean overwrite, Configuration conf)
            throws IOException {
        boolean commit = !overwrite && COMMIT.matcher(path.getName()).matches();
        if (commit) {
            event("before delta-commit " + path.toUri().getPath());
        }
        super.write(path, actions, overwrite, conf);
        if (commit) {
            event("after delta-commit " + path.toUri().getPath());
        }
    }

    private static synchronized void event(String what) throws IOException {
        String journal = setting("LAKEREP_CRASHPOINT_JOURNAL");
        if (journal == null) {
            return;
        }
        java.nio.file.Path file = Paths.get(journal);
        long number = Files.exists(file) ? Files.readAllLines(file).size() + 1 : 1;
        Files.write(file, (number + " " + what + "\n").getBytes(StandardCharsets.UTF_8),
                StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.SYNC);
        String at = setting("LAKEREP_CRASHPOINT_AT");
        if (at != null && Long.parseLong(at) == number) {
            ProcessHandle.current().parent().ifPresent(ProcessHandle::destroyForcibly);
            Runtime.getRuntime().halt(137);
        }
    }

    private static String setting(String name) {
        String property = System.getProperty(name);
        return property != null ? property : System.getenv(name);
    }
}
