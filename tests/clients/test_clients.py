"""`sgc serve` against Kafka clients this project did not write: librdkafka through Debian's
`kcat` and through the confluent-kafka admin client. Streams heartbeats, which no client here
can send, come from the project's own frames (`sgc encode-frames`) over a plain socket."""

import json
import os
import shutil
import socket
import struct
import subprocess
import tempfile
import unittest

from confluent_kafka import ConsumerGroupTopicPartitions, KafkaException, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

SGC = os.environ.get("SGC_BIN", "target/debug/sgc")
CONFIG = {"dialect": "kafka-4.2", "group.streams.initial.rebalance.delay.ms": 0}
TOPOLOGY = {"epoch": 0, "subtopologies": [{"subtopologyId": "0", "sourceTopics": ["in"],
            "sourceTopicRegex": [], "stateChangelogTopics": [], "repartitionSinkTopics": [],
            "repartitionSourceTopics": [], "copartitionGroups": []}]}


def heartbeat(group, member, epoch):
    request = {"groupId": group, "memberId": member, "memberEpoch": epoch,
               "endpointInformationEpoch": -1, "processId": "p-" + member,
               "rebalanceTimeoutMs": 300000, "activeTasks": [], "standbyTasks": [],
               "warmupTasks": []}
    if epoch == 0:
        request["topology"] = TOPOLOGY
    return {"nowMs": 0, "type": "StreamsGroupHeartbeat", "request": request}


def frames(*inputs):
    """The request frames of coordinator inputs, as `sgc encode-frames` writes them."""
    text = "".join(json.dumps(i) + "\n" for i in inputs)
    out = subprocess.run([SGC, "encode-frames", "--dialect", "kafka-4.2"], input=text.encode(),
                         capture_output=True, check=True).stdout
    at, found = 0, []
    while at < len(out):
        (size,) = struct.unpack(">i", out[at:at + 4])
        found.append(out[at:at + 4 + size])
        at += 4 + size
    return found


class Server:
    def __init__(self, listen="127.0.0.1:0", extra=(), users=None):
        self.dir = tempfile.mkdtemp(prefix="sgc-clients-")
        with open(os.path.join(self.dir, "config.json"), "w") as f:
            json.dump(CONFIG, f)
        args = list(extra)
        if users is not None:
            with open(os.path.join(self.dir, "users.json"), "w") as f:
                json.dump(users, f)
            args += ["--sasl-users", os.path.join(self.dir, "users.json")]
        self.proc = subprocess.Popen(
            [SGC, "serve", "--listen", listen, "--data-dir", os.path.join(self.dir, "data"),
             "--config", os.path.join(self.dir, "config.json"), "--topic", "in:4"] + args,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        line = self.proc.stdout.readline().decode()
        assert line.startswith("listening "), line
        self.port = int(line.strip().rsplit(":", 1)[1])
        self.bootstrap = "127.0.0.1:%d" % self.port

    def stop(self):
        self.proc.kill()
        self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)

    def send(self, frame):
        """One request frame over a new connection; the response frame's body after the
        correlation id and the header's tagged fields."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=10) as s:
            s.sendall(frame)
            (size,) = struct.unpack(">i", recv_exactly(s, 4))
            return recv_exactly(s, size)


def recv_exactly(s, n):
    data = b""
    while len(data) < n:
        chunk = s.recv(n - len(data))
        if not chunk:
            raise ConnectionError("closed")
        data += chunk
    return data


def heartbeat_error(response):
    # StreamsGroupHeartbeat v0 response: correlation id, header tags (flexible), throttle time,
    # then the error code.
    return struct.unpack(">h", response[4 + 1 + 4:4 + 1 + 4 + 2])[0]


class ClientsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = Server()
        cls.admin = AdminClient({"bootstrap.servers": cls.server.bootstrap})

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def test_kcat_reads_the_metadata(self):
        out = subprocess.run(["kcat", "-L", "-J", "-b", self.server.bootstrap, "-m", "10"],
                             capture_output=True, check=True, timeout=30).stdout
        meta = json.loads(out)
        self.assertEqual([b["id"] for b in meta["brokers"]], [0])
        topics = {t["topic"]: len(t["partitions"]) for t in meta["topics"]}
        self.assertEqual(topics["in"], 4)
        self.assertEqual(topics["__consumer_offsets"], 50)

    def test_the_admin_client_lists_and_creates_topics(self):
        md = self.admin.list_topics(timeout=10)
        self.assertEqual(len(md.topics["in"].partitions), 4)
        self.assertEqual(md.controller_id, 0)
        futures = self.admin.create_topics([NewTopic("created", 3, 1), NewTopic("in", 1, 1)])
        futures["created"].result(10)
        with self.assertRaises(KafkaException) as e:
            futures["in"].result(10)
        self.assertEqual(e.exception.args[0].name(), "TOPIC_ALREADY_EXISTS")
        self.assertEqual(len(self.admin.list_topics(timeout=10).topics["created"].partitions), 3)

    def test_the_admin_client_deletes_a_streams_group_once_it_is_empty(self):
        join, = frames(heartbeat("app", "m1", 0))
        self.assertEqual(heartbeat_error(self.server.send(join)), 0)
        futures = self.admin.delete_consumer_groups(["app", "absent"], request_timeout=10)
        with self.assertRaises(KafkaException) as e:
            futures["app"].result(10)
        self.assertEqual(e.exception.args[0].name(), "NON_EMPTY_GROUP")
        with self.assertRaises(KafkaException) as e:
            futures["absent"].result(10)
        self.assertEqual(e.exception.args[0].name(), "GROUP_ID_NOT_FOUND")
        leave, = frames(heartbeat("app", "m1", -1))
        self.assertEqual(heartbeat_error(self.server.send(leave)), 0)
        self.admin.delete_consumer_groups(["app"], request_timeout=10)["app"].result(10)

    def test_the_admin_client_commits_fetches_and_lists_offsets_of_groups(self):
        request = ConsumerGroupTopicPartitions(
            "offs", [TopicPartition("in", 0, 42), TopicPartition("in", 3, 7)])
        done = self.admin.alter_consumer_group_offsets([request], request_timeout=10)
        committed = done["offs"].result(10)
        self.assertEqual([(p.partition, p.offset, p.error) for p in committed.topic_partitions],
                         [(0, 42, None), (3, 7, None)])
        fetched = self.admin.list_consumer_group_offsets(
            [ConsumerGroupTopicPartitions("offs")], request_timeout=10)["offs"].result(10)
        self.assertEqual(sorted((p.topic, p.partition, p.offset)
                                for p in fetched.topic_partitions),
                         [("in", 0, 42), ("in", 3, 7)])
        # A streams group's offsets: committed as an admin while it has no member.
        join, leave = frames(heartbeat("streams-app", "m1", 0), heartbeat("streams-app", "m1", -1))
        self.assertEqual(heartbeat_error(self.server.send(join)), 0)
        self.assertEqual(heartbeat_error(self.server.send(leave)), 0)
        request = ConsumerGroupTopicPartitions("streams-app", [TopicPartition("in", 1, 5)])
        self.admin.alter_consumer_group_offsets([request], request_timeout=10)["streams-app"].result(10)
        fetched = self.admin.list_consumer_group_offsets(
            [ConsumerGroupTopicPartitions("streams-app", [TopicPartition("in", 1)])],
            request_timeout=10)["streams-app"].result(10)
        self.assertEqual([(p.partition, p.offset) for p in fetched.topic_partitions], [(1, 5)])
        listed = self.admin.list_consumer_groups(request_timeout=10).result(10)
        ids = {g.group_id for g in listed.valid}
        self.assertIn("offs", ids)
        self.assertEqual(listed.errors, [])




class SaslTest(unittest.TestCase):
    """A `SASL_PLAINTEXT` listener with Kafka's `StandardAuthorizer`: librdkafka authenticates
    with SCRAM-SHA-256, SCRAM-SHA-512 and PLAIN, a wrong password is refused, and the ACLs are
    managed by a super user and refused to anyone else."""

    @classmethod
    def setUpClass(cls):
        cls.server = Server(
            listen="SASL_PLAINTEXT://127.0.0.1:0",
            extra=["--authorizer", "standard", "--super-users", "User:admin"],
            users={"admin": "admin-secret", "alice": "alice-secret"})

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def client(self, mechanism, user, password):
        return AdminClient({"bootstrap.servers": self.server.bootstrap,
                            "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": mechanism,
                            "sasl.username": user, "sasl.password": password})

    def test_every_mechanism_authenticates(self):
        for mechanism in ["SCRAM-SHA-256", "SCRAM-SHA-512", "PLAIN"]:
            md = self.client(mechanism, "alice", "alice-secret").list_topics(timeout=10)
            self.assertEqual(len(md.topics["in"].partitions), 4, mechanism)

    def test_a_wrong_password_is_refused(self):
        for mechanism in ["SCRAM-SHA-256", "PLAIN"]:
            with self.assertRaises(KafkaException) as e:
                self.client(mechanism, "alice", "wrong").list_topics(timeout=5)
            self.assertIn(e.exception.args[0].name(), ("_AUTHENTICATION", "_TRANSPORT"), mechanism)

    def test_acls_are_managed_by_the_super_user_only(self):
        from confluent_kafka.admin import (AclBinding, AclBindingFilter, AclOperation,
                                           AclPermissionType, ResourcePatternType, ResourceType)
        acl = AclBinding(ResourceType.GROUP, "app", ResourcePatternType.LITERAL, "User:alice",
                         "*", AclOperation.READ, AclPermissionType.ALLOW)
        admin = self.client("SCRAM-SHA-256", "admin", "admin-secret")
        admin.create_acls([acl])[acl].result(10)
        every = AclBindingFilter(ResourceType.ANY, None, ResourcePatternType.ANY, None, None,
                                 AclOperation.ANY, AclPermissionType.ANY)
        self.assertEqual(admin.describe_acls(every).result(10), [acl])
        alice = self.client("SCRAM-SHA-256", "alice", "alice-secret")
        with self.assertRaises(KafkaException) as e:
            alice.create_acls([acl])[acl].result(10)
        self.assertEqual(e.exception.args[0].name(), "CLUSTER_AUTHORIZATION_FAILED")
        deleted = admin.delete_acls([every])[every].result(10)
        self.assertEqual(deleted, [acl])


if __name__ == "__main__":
    unittest.main(verbosity=2)
