import io.debezium.embedded.Connect;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.ChangeEventFormat;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Debezium's PostgreSQL connector in its embedded engine, writing every event value one per line
 * as Kafka Connect's FileStreamSink writes them (sink value converter StringConverter) behind the
 * source's JsonConverter: into WRAPPED with the schema/payload wrapper (schemas.enable=true,
 * Kafka Connect's default), into BARE without it. A tombstone is the line `null`.
 *
 * <p>It stops at the END of the first transaction that changed the table public.lakerep_stop, so a
 * test knows when everything before it was written; exit code 1 when that did not come in time.
 *
 * <p>Usage: java -cp 'JARS/*' WriteEvents.java WRAPPED BARE TIMEOUT_SECONDS KEY=VALUE...
 * (the connector's settings; the defaults below are those a test needs).
 */
public class WriteEvents {
    public static void main(String[] args) throws Exception {
        Path wrappedPath = Path.of(args[0]);
        Path barePath = Path.of(args[1]);
        long timeoutSeconds = Long.parseLong(args[2]);
        Properties settings = new Properties();
        settings.setProperty("name", "lakerep-test");
        settings.setProperty("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
        settings.setProperty("offset.storage", "org.apache.kafka.connect.storage.MemoryOffsetBackingStore");
        settings.setProperty("offset.flush.interval.ms", "1000");
        settings.setProperty("topic.prefix", "dbserver1");
        settings.setProperty("plugin.name", "pgoutput");
        settings.setProperty("provide.transaction.metadata", "true");
        for (int i = 3; i < args.length; i++) {
            String[] pair = args[i].split("=", 2);
            settings.setProperty(pair[0], pair[1]);
        }
        String stopTopic = settings.getProperty("topic.prefix") + ".public.lakerep_stop";
        String transactionTopic = settings.getProperty("topic.prefix") + ".transaction";

        JsonConverter wrapped = converter(true);
        JsonConverter bare = converter(false);
        CountDownLatch done = new CountDownLatch(1);
        boolean[] stopping = {false};
        try (PrintWriter wrappedOut = writer(wrappedPath);
                PrintWriter bareOut = writer(barePath)) {
            DebeziumEngine<RecordChangeEvent<SourceRecord>> engine =
                    DebeziumEngine.create(ChangeEventFormat.of(Connect.class))
                            .using(settings)
                            .notifying(event -> {
                                SourceRecord record = event.record();
                                if (done.getCount() == 0) {
                                    return;
                                }
                                wrappedOut.println(text(wrapped, record));
                                bareOut.println(text(bare, record));
                                if (record.topic().equals(stopTopic)) {
                                    stopping[0] = true;
                                } else if (stopping[0]
                                        && record.topic().equals(transactionTopic)
                                        && "END".equals(((Struct) record.value()).getString("status"))) {
                                    wrappedOut.flush();
                                    bareOut.flush();
                                    done.countDown();
                                }
                            })
                            .using((success, message, error) -> {
                                if (!success) {
                                    System.err.println("engine stopped: " + message);
                                    if (error != null) {
                                        error.printStackTrace();
                                    }
                                }
                                done.countDown();
                            })
                            .build();
            ExecutorService executor = Executors.newSingleThreadExecutor();
            executor.execute(engine);
            boolean stopped = done.await(timeoutSeconds, TimeUnit.SECONDS);
            engine.close();
            executor.shutdown();
            executor.awaitTermination(60, TimeUnit.SECONDS);
            if (!stopped || !stopping[0]) {
                System.err.println("no END of a transaction on public.lakerep_stop within "
                        + timeoutSeconds + " s");
                System.exit(1);
            }
        }
        System.exit(0);
    }

    private static JsonConverter converter(boolean schemas) {
        JsonConverter converter = new JsonConverter();
        converter.configure(Map.of("schemas.enable", schemas, "converter.type", "value"));
        return converter;
    }

    private static String text(JsonConverter converter, SourceRecord record) {
        byte[] value = converter.fromConnectData(record.topic(), record.valueSchema(), record.value());
        return value == null ? "null" : new String(value, StandardCharsets.UTF_8);
    }

    private static PrintWriter writer(Path path) throws Exception {
        return new PrintWriter(Files.newBufferedWriter(path, StandardCharsets.UTF_8));
    }
}
