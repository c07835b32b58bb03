/**
 * How many network interfaces each EC2 instance type takes and how many IPv4 addresses each interface
 * holds: what bounds the VPC addresses one node can claim for its pods through the VPC CNI.
 *
 * Data, not code: recorded from amazon-vpc-cni-k8s `pkg/vpc/vpc_ip_resource_limit.go` (commit b5218838,
 * August 2026), which the VPC CNI generates from EC2 DescribeInstanceTypes in 17 commercial regions
 * (`NetworkInfo.MaximumNetworkInterfaces` and `Ipv4AddressesPerInterface`). Its `misc/eni-max-pods.txt`
 * derives max pods from the same two numbers: interfaces x (addresses - 1) + 2.
 * Rows: [interfaces, IPv4 addresses per interface, the instance types with those limits].
 */
export const ENI_LIMIT_ROWS: readonly (readonly [number, number, string])[] = [
  [2, 2, "t1.micro t2.micro t2.nano t3.micro t3.nano t3a.micro t3a.nano t4g.micro t4g.nano"],
  [
    2,
    4,
    "a1.medium c6g.medium c6gd.medium c6gn.medium c7a.medium c7g.medium c7gd.medium c7gn.medium c8a.medium c8g.medium c8gb.medium c8gd.medium c8gn.medium g4ad.2xlarge g4ad.xlarge is4gen.medium m1.small m6g.medium m6gd.medium m7a.medium m7g.medium m7gd.medium m8a.medium m8g.medium m8gb.medium m8gd.medium m8gn.medium r6g.medium r6gd.medium r7a.medium r7g.medium r7gd.medium r8a.medium r8g.medium r8gb.medium r8gd.medium r8gn.medium t3a.small x2gd.medium x8g.medium",
  ],
  [2, 6, "c1.medium m1.medium m3.medium"],
  [3, 4, "m8azn.medium t2.small t3.small t4g.small"],
  [4, 3, "d3.xlarge d3en.xlarge"],
  [3, 6, "t2.medium t3.medium t3a.medium t4g.medium"],
  [2, 10, "g6f.large m4.large"],
  [4, 5, "d3.2xlarge d3en.2xlarge"],
  [2, 15, "trn2.3xlarge"],
  [
    3,
    10,
    "a1.large c3.large c4.large c5.large c5a.large c5ad.large c5d.large c5n.large c6a.large c6g.large c6gd.large c6gn.large c6i.large c6id.large c6in.large c7a.large c7g.large c7gd.large c7gn.large c7i-flex.large c7i.large c8g.large c8gb.large c8gd.large c8gn.large g4ad.4xlarge g4dn.2xlarge g4dn.4xlarge g4dn.xlarge i3.large i3en.large i4g.large i4i.large i7i.large i7ie.large i8g.large i8ge.large im4gn.large is4gen.large m1.large m3.large m5.large m5a.large m5ad.large m5d.large m5dn.large m5n.large m5zn.large m6a.large m6g.large m6gd.large m6i.large m6id.large m6idn.large m6in.large m7a.large m7g.large m7gd.large m7i-flex.large m7i.large m8g.large m8gb.large m8gd.large m8gn.large r3.large r4.large r5.large r5a.large r5ad.large r5b.large r5d.large r5dn.large r5n.large r6a.large r6g.large r6gd.large r6i.large r6id.large r6idn.large r6in.large r7a.large r7g.large r7gd.large r7i.large r7iz.large r8g.large r8gb.large r8gd.large r8gn.large x1e.xlarge x2gd.large x8g.large z1d.large",
  ],
  [3, 12, "t2.large t3.large t3a.large t4g.large"],
  [2, 20, "c9g.medium c9gd.medium m9g.medium m9gd.medium"],
  [4, 10, "d3.4xlarge d3en.4xlarge inf1.2xlarge inf1.xlarge"],
  [3, 15, "t2.2xlarge t2.xlarge"],
  [1, 50, "hpc6id.32xlarge"],
  [
    3,
    20,
    "c8a.large c8i-flex.large c8i.large c8id.large c9g.large c9gd.large d3.8xlarge m8a.large m8i-flex.large m8i.large m8id.large m9g.large m9gd.large r8a.large r8i-flex.large r8i.large r8id.large x8i.large",
  ],
  [
    4,
    15,
    "a1.2xlarge a1.xlarge c1.xlarge c3.2xlarge c3.xlarge c4.2xlarge c4.xlarge c5.2xlarge c5.xlarge c5a.2xlarge c5a.xlarge c5ad.2xlarge c5ad.xlarge c5d.2xlarge c5d.xlarge c5n.2xlarge c5n.xlarge c6a.2xlarge c6a.xlarge c6g.2xlarge c6g.xlarge c6gd.2xlarge c6gd.xlarge c6gn.2xlarge c6gn.xlarge c6i.2xlarge c6i.xlarge c6id.2xlarge c6id.xlarge c6in.2xlarge c6in.xlarge c7a.2xlarge c7a.xlarge c7g.2xlarge c7g.xlarge c7gd.2xlarge c7gd.xlarge c7gn.2xlarge c7gn.xlarge c7i-flex.2xlarge c7i-flex.xlarge c7i.2xlarge c7i.xlarge c8g.2xlarge c8g.xlarge c8gb.2xlarge c8gb.xlarge c8gd.2xlarge c8gd.xlarge c8gn.2xlarge c8gn.xlarge d2.2xlarge d2.xlarge d3en.6xlarge f1.2xlarge g4ad.8xlarge g4dn.16xlarge g4dn.8xlarge g5.2xlarge g5.xlarge g5g.2xlarge g5g.xlarge g6.2xlarge g6.xlarge g6e.2xlarge g6e.xlarge g6f.2xlarge g6f.xlarge h1.2xlarge i2.2xlarge i2.xlarge i3.2xlarge i3.xlarge i3en.2xlarge i3en.3xlarge i3en.xlarge i4g.2xlarge i4g.xlarge i4i.2xlarge i4i.xlarge i7i.2xlarge i7i.xlarge i7ie.2xlarge i7ie.3xlarge i7ie.xlarge i8g.2xlarge i8g.xlarge i8ge.2xlarge i8ge.xlarge im4gn.2xlarge im4gn.xlarge inf2.xlarge is4gen.2xlarge is4gen.xlarge m1.xlarge m2.xlarge m3.xlarge m4.2xlarge m4.xlarge m5.2xlarge m5.xlarge m5a.2xlarge m5a.xlarge m5ad.2xlarge m5ad.xlarge m5d.2xlarge m5d.xlarge m5dn.2xlarge m5dn.xlarge m5n.2xlarge m5n.xlarge m5zn.2xlarge m5zn.xlarge m6a.2xlarge m6a.xlarge m6g.2xlarge m6g.xlarge m6gd.2xlarge m6gd.xlarge m6i.2xlarge m6i.xlarge m6id.2xlarge m6id.xlarge m6idn.2xlarge m6idn.xlarge m6in.2xlarge m6in.xlarge m7a.2xlarge m7a.xlarge m7g.2xlarge m7g.xlarge m7gd.2xlarge m7gd.xlarge m7i-flex.2xlarge m7i-flex.xlarge m7i.2xlarge m7i.xlarge m8g.2xlarge m8g.xlarge m8gb.2xlarge m8gb.xlarge m8gd.2xlarge m8gd.xlarge m8gn.2xlarge m8gn.xlarge p3.2xlarge r3.2xlarge r3.xlarge r4.2xlarge r4.xlarge r5.2xlarge r5.xlarge r5a.2xlarge r5a.xlarge r5ad.2xlarge r5ad.xlarge r5b.2xlarge r5b.xlarge r5d.2xlarge r5d.xlarge r5dn.2xlarge r5dn.xlarge r5n.2xlarge r5n.xlarge r6a.2xlarge r6a.xlarge r6g.2xlarge r6g.xlarge r6gd.2xlarge r6gd.xlarge r6i.2xlarge r6i.xlarge r6id.2xlarge r6id.xlarge r6idn.2xlarge r6idn.xlarge r6in.2xlarge r6in.xlarge r7a.2xlarge r7a.xlarge r7g.2xlarge r7g.xlarge r7gd.2xlarge r7gd.xlarge r7i.2xlarge r7i.xlarge r7iz.2xlarge r7iz.xlarge r8g.2xlarge r8g.xlarge r8gb.2xlarge r8gb.xlarge r8gd.2xlarge r8gd.xlarge r8gn.2xlarge r8gn.xlarge t3.2xlarge t3.xlarge t3a.2xlarge t3a.xlarge t4g.2xlarge t4g.xlarge trn1.2xlarge vt1.3xlarge x1e.2xlarge x1e.4xlarge x1e.8xlarge x2gd.2xlarge x2gd.xlarge x2iedn.2xlarge x2iedn.xlarge x2iezn.2xlarge x8g.2xlarge x8g.xlarge z1d.2xlarge z1d.xlarge",
  ],
  [
    4,
    20,
    "c8a.xlarge c8ib.large c8in.large c8ine.large d3en.8xlarge m8a.xlarge m8azn.large m8azn.xlarge m8ib.large m8idb.large m8idn.large m8in.large m8ine.large r8a.xlarge r8ib.large r8idb.large r8idn.large r8in.large x8aedz.large x8aedz.xlarge",
  ],
  [3, 30, "d3en.12xlarge"],
  [
    2,
    50,
    "hpc6a.48xlarge hpc7a.12xlarge hpc7a.24xlarge hpc7a.48xlarge hpc7a.96xlarge hpc8a.96xlarge p5.48xlarge p5e.48xlarge trn2.48xlarge",
  ],
  [
    4,
    30,
    "c8i-flex.2xlarge c8i-flex.xlarge c8i.2xlarge c8i.xlarge c8ib.2xlarge c8ib.xlarge c8id.2xlarge c8id.xlarge c8in.2xlarge c8in.xlarge c8ine.2xlarge c8ine.xlarge c9g.2xlarge c9g.xlarge c9gd.2xlarge c9gd.xlarge m2.2xlarge m3.2xlarge m8i-flex.2xlarge m8i-flex.xlarge m8i.2xlarge m8i.xlarge m8ib.2xlarge m8ib.xlarge m8id.2xlarge m8id.xlarge m8idb.2xlarge m8idb.xlarge m8idn.2xlarge m8idn.xlarge m8in.2xlarge m8in.xlarge m8ine.2xlarge m8ine.xlarge m9g.2xlarge m9g.xlarge m9gd.2xlarge m9gd.xlarge p5.4xlarge r8i-flex.2xlarge r8i-flex.xlarge r8i.2xlarge r8i.xlarge r8ib.2xlarge r8ib.xlarge r8id.2xlarge r8id.xlarge r8idb.2xlarge r8idb.xlarge r8idn.2xlarge r8idn.xlarge r8in.2xlarge r8in.xlarge x8i.2xlarge x8i.xlarge",
  ],
  [5, 30, "u-12tb1.metal u-6tb1.metal u-9tb1.metal"],
  [4, 40, "c8a.2xlarge m8a.2xlarge r8a.2xlarge"],
  [6, 30, "i8ge.3xlarge"],
  [4, 50, "hpc7g.16xlarge hpc7g.4xlarge hpc7g.8xlarge p5en.48xlarge p6-b200.48xlarge p6-b300.48xlarge"],
  [
    8,
    30,
    "a1.4xlarge a1.metal c3.4xlarge c3.8xlarge c4.4xlarge c4.8xlarge c5.12xlarge c5.4xlarge c5.9xlarge c5a.12xlarge c5a.4xlarge c5a.8xlarge c5ad.12xlarge c5ad.4xlarge c5ad.8xlarge c5d.12xlarge c5d.4xlarge c5d.9xlarge c5n.4xlarge c5n.9xlarge c6a.12xlarge c6a.4xlarge c6a.8xlarge c6g.12xlarge c6g.4xlarge c6g.8xlarge c6gd.12xlarge c6gd.4xlarge c6gd.8xlarge c6gn.12xlarge c6gn.4xlarge c6gn.8xlarge c6i.12xlarge c6i.4xlarge c6i.8xlarge c6id.12xlarge c6id.4xlarge c6id.8xlarge c6in.12xlarge c6in.4xlarge c6in.8xlarge c7a.12xlarge c7a.4xlarge c7a.8xlarge c7g.12xlarge c7g.4xlarge c7g.8xlarge c7gd.12xlarge c7gd.4xlarge c7gd.8xlarge c7gn.12xlarge c7gn.4xlarge c7gn.8xlarge c7i-flex.12xlarge c7i-flex.4xlarge c7i-flex.8xlarge c7i.12xlarge c7i.4xlarge c7i.8xlarge c8g.12xlarge c8g.4xlarge c8g.8xlarge c8gb.4xlarge c8gd.12xlarge c8gd.4xlarge c8gd.8xlarge c8gn.4xlarge cr1.8xlarge d2.4xlarge d2.8xlarge f1.4xlarge f2.12xlarge f2.6xlarge g4ad.16xlarge g4dn.12xlarge g5.16xlarge g5.4xlarge g5.8xlarge g5g.4xlarge g5g.8xlarge g6.12xlarge g6.4xlarge g6.8xlarge g6e.4xlarge g6e.8xlarge g6f.4xlarge gr6.4xlarge gr6.8xlarge gr6f.4xlarge h1.4xlarge h1.8xlarge hs1.8xlarge i2.4xlarge i2.8xlarge i3.4xlarge i3.8xlarge i3en.12xlarge i3en.6xlarge i4g.4xlarge i4g.8xlarge i4i.12xlarge i4i.4xlarge i4i.8xlarge i7i.12xlarge i7i.4xlarge i7i.8xlarge i7ie.6xlarge i8g.12xlarge i8g.4xlarge i8g.8xlarge im4gn.4xlarge im4gn.8xlarge inf1.6xlarge inf2.8xlarge is4gen.4xlarge is4gen.8xlarge m2.4xlarge m4.10xlarge m4.16xlarge m4.4xlarge m5.12xlarge m5.4xlarge m5.8xlarge m5a.12xlarge m5a.4xlarge m5a.8xlarge m5ad.12xlarge m5ad.4xlarge m5ad.8xlarge m5d.12xlarge m5d.4xlarge m5d.8xlarge m5dn.12xlarge m5dn.4xlarge m5dn.8xlarge m5n.12xlarge m5n.4xlarge m5n.8xlarge m5zn.3xlarge m5zn.6xlarge m6a.12xlarge m6a.4xlarge m6a.8xlarge m6g.12xlarge m6g.4xlarge m6g.8xlarge m6gd.12xlarge m6gd.4xlarge m6gd.8xlarge m6i.12xlarge m6i.4xlarge m6i.8xlarge m6id.12xlarge m6id.4xlarge m6id.8xlarge m6idn.12xlarge m6idn.4xlarge m6idn.8xlarge m6in.12xlarge m6in.4xlarge m6in.8xlarge m7a.12xlarge m7a.4xlarge m7a.8xlarge m7g.12xlarge m7g.4xlarge m7g.8xlarge m7gd.12xlarge m7gd.4xlarge m7gd.8xlarge m7i-flex.12xlarge m7i-flex.4xlarge m7i-flex.8xlarge m7i.12xlarge m7i.4xlarge m7i.8xlarge m8g.12xlarge m8g.4xlarge m8g.8xlarge m8gb.4xlarge m8gd.12xlarge m8gd.4xlarge m8gd.8xlarge m8gn.4xlarge mac-m3ultra.metal mac-m4.metal mac-m4max.metal mac-m4pro.metal mac1.metal mac2-m1ultra.metal mac2-m2.metal mac2-m2pro.metal mac2.metal p3.16xlarge p3.8xlarge r3.4xlarge r3.8xlarge r4.4xlarge r4.8xlarge r5.12xlarge r5.4xlarge r5.8xlarge r5a.12xlarge r5a.4xlarge r5a.8xlarge r5ad.12xlarge r5ad.4xlarge r5ad.8xlarge r5b.12xlarge r5b.4xlarge r5b.8xlarge r5d.12xlarge r5d.4xlarge r5d.8xlarge r5dn.12xlarge r5dn.4xlarge r5dn.8xlarge r5n.12xlarge r5n.4xlarge r5n.8xlarge r6a.12xlarge r6a.4xlarge r6a.8xlarge r6g.12xlarge r6g.4xlarge r6g.8xlarge r6gd.12xlarge r6gd.4xlarge r6gd.8xlarge r6i.12xlarge r6i.4xlarge r6i.8xlarge r6id.12xlarge r6id.4xlarge r6id.8xlarge r6idn.12xlarge r6idn.4xlarge r6idn.8xlarge r6in.12xlarge r6in.4xlarge r6in.8xlarge r7a.12xlarge r7a.4xlarge r7a.8xlarge r7g.12xlarge r7g.4xlarge r7g.8xlarge r7gd.12xlarge r7gd.4xlarge r7gd.8xlarge r7i.12xlarge r7i.4xlarge r7i.8xlarge r7iz.12xlarge r7iz.4xlarge r7iz.8xlarge r8g.12xlarge r8g.4xlarge r8g.8xlarge r8gb.4xlarge r8gd.12xlarge r8gd.4xlarge r8gd.8xlarge r8gn.4xlarge u-3tb1.56xlarge vt1.6xlarge x1.16xlarge x1.32xlarge x1e.16xlarge x1e.32xlarge x2gd.12xlarge x2gd.4xlarge x2gd.8xlarge x2iedn.4xlarge x2iedn.8xlarge x2iezn.4xlarge x2iezn.6xlarge x2iezn.8xlarge x8g.12xlarge x8g.4xlarge x8g.8xlarge z1d.3xlarge z1d.6xlarge",
  ],
  [5, 50, "trn1.32xlarge trn1n.32xlarge"],
  [4, 64, "g7.2xlarge g7e.2xlarge"],
  [
    10,
    30,
    "c8gb.8xlarge c8gn.8xlarge g6e.12xlarge i8ge.6xlarge m8gb.8xlarge m8gn.8xlarge r8gb.8xlarge r8gn.8xlarge",
  ],
  [8, 40, "c8a.4xlarge m8a.4xlarge m8azn.3xlarge m8azn.6xlarge r8a.4xlarge x8aedz.3xlarge x8aedz.6xlarge"],
  [11, 30, "inf1.24xlarge"],
  [7, 50, "g5.48xlarge"],
  [
    12,
    30,
    "c8gb.12xlarge c8gn.12xlarge i8ge.12xlarge m8gb.12xlarge m8gn.12xlarge r8gb.12xlarge r8gn.12xlarge",
  ],
  [
    8,
    50,
    "c6in.32xlarge c6in.metal c8i-flex.4xlarge c8i.4xlarge c8ib.4xlarge c8ib.8xlarge c8id.4xlarge c8in.4xlarge c8in.8xlarge c8ine.4xlarge c8ine.8xlarge c9g.4xlarge c9gd.4xlarge f1.16xlarge h1.16xlarge i7ie.12xlarge m6idn.32xlarge m6idn.metal m6in.32xlarge m6in.metal m8i-flex.4xlarge m8i.4xlarge m8ib.4xlarge m8ib.8xlarge m8id.4xlarge m8idb.4xlarge m8idb.8xlarge m8idn.4xlarge m8idn.8xlarge m8in.4xlarge m8in.8xlarge m8ine.4xlarge m8ine.8xlarge m9g.4xlarge m9gd.4xlarge r6idn.32xlarge r6idn.metal r6in.32xlarge r6in.metal r8i-flex.4xlarge r8i.4xlarge r8ib.4xlarge r8ib.8xlarge r8id.4xlarge r8idb.4xlarge r8idb.8xlarge r8idn.4xlarge r8idn.8xlarge r8in.4xlarge r8in.8xlarge u7in-16tb.224xlarge u7in-24tb.224xlarge u7in-32tb.224xlarge x8i.4xlarge",
  ],
  [10, 40, "c8a.8xlarge m8a.8xlarge r8a.8xlarge"],
  [15, 30, "i4i.24xlarge"],
  [
    10,
    50,
    "c8i-flex.8xlarge c8i.8xlarge c8id.8xlarge c9g.8xlarge c9gd.8xlarge g6e.24xlarge g6e.48xlarge m8i-flex.8xlarge m8i.8xlarge m8id.8xlarge m9g.8xlarge m9gd.8xlarge r8i-flex.8xlarge r8i.8xlarge r8id.8xlarge x8i.8xlarge",
  ],
  [8, 64, "g7.4xlarge g7e.4xlarge g7e.8xlarge"],
  [
    12,
    50,
    "c8gb.48xlarge c8gb.metal-48xl c8gn.48xlarge c8gn.metal-48xl c8i-flex.12xlarge c8i.12xlarge c8ib.12xlarge c8id.12xlarge c8in.12xlarge c8ine.12xlarge c9g.12xlarge c9gd.12xlarge m8gb.48xlarge m8gb.metal-48xl m8gn.48xlarge m8gn.metal-48xl m8i-flex.12xlarge m8i.12xlarge m8ib.12xlarge m8id.12xlarge m8idb.12xlarge m8idn.12xlarge m8in.12xlarge m8ine.12xlarge m9g.12xlarge m9gd.12xlarge r8gb.48xlarge r8gb.metal-48xl r8gn.48xlarge r8gn.metal-48xl r8i-flex.12xlarge r8i.12xlarge r8ib.12xlarge r8id.12xlarge r8idb.12xlarge r8idn.12xlarge r8in.12xlarge x8i.12xlarge",
  ],
  [10, 64, "g7.8xlarge g7e.12xlarge g7e.24xlarge g7e.48xlarge"],
  [
    15,
    50,
    "bmn-sf1.metal c5.18xlarge c5.24xlarge c5.metal c5a.16xlarge c5a.24xlarge c5a.metal c5ad.16xlarge c5ad.24xlarge c5ad.metal c5d.18xlarge c5d.24xlarge c5d.metal c5n.18xlarge c5n.metal c6a.16xlarge c6a.24xlarge c6a.32xlarge c6a.48xlarge c6a.metal c6g.16xlarge c6g.metal c6gd.16xlarge c6gd.metal c6gn.16xlarge c6i.16xlarge c6i.24xlarge c6i.32xlarge c6i.metal c6id.16xlarge c6id.24xlarge c6id.32xlarge c6id.metal c6in.16xlarge c6in.24xlarge c7a.16xlarge c7a.24xlarge c7a.32xlarge c7a.48xlarge c7a.metal-48xl c7g.16xlarge c7g.metal c7gd.16xlarge c7gd.metal c7gn.16xlarge c7gn.metal c7i-flex.16xlarge c7i.16xlarge c7i.24xlarge c7i.32xlarge c7i.48xlarge c7i.metal-24xl c7i.metal-48xl c8g.16xlarge c8g.24xlarge c8g.48xlarge c8g.metal-24xl c8g.metal-48xl c8gd.16xlarge c8gd.24xlarge c8gd.48xlarge c8gd.metal-24xl c8gd.metal-48xl dl1.24xlarge dl2q.24xlarge f2.48xlarge g4dn.metal g5.12xlarge g5.24xlarge g5g.16xlarge g5g.metal g6.16xlarge g6.24xlarge g6.48xlarge g6e.16xlarge i3.16xlarge i3en.24xlarge i3en.metal i4g.16xlarge i4i.16xlarge i4i.32xlarge i4i.metal i7i.16xlarge i7i.24xlarge i7i.48xlarge i7i.metal-24xl i7i.metal-48xl i7ie.18xlarge i7ie.24xlarge i7ie.48xlarge i7ie.metal-24xl i7ie.metal-48xl i8g.16xlarge i8g.24xlarge i8g.48xlarge i8g.metal-24xl i8g.metal-48xl im4gn.16xlarge inf2.24xlarge inf2.48xlarge m5.16xlarge m5.24xlarge m5.metal m5a.16xlarge m5a.24xlarge m5ad.16xlarge m5ad.24xlarge m5d.16xlarge m5d.24xlarge m5d.metal m5dn.16xlarge m5dn.24xlarge m5dn.metal m5n.16xlarge m5n.24xlarge m5n.metal m5zn.12xlarge m5zn.metal m6a.16xlarge m6a.24xlarge m6a.32xlarge m6a.48xlarge m6a.metal m6g.16xlarge m6g.metal m6gd.16xlarge m6gd.metal m6i.16xlarge m6i.24xlarge m6i.32xlarge m6i.metal m6id.16xlarge m6id.24xlarge m6id.32xlarge m6id.metal m6idn.16xlarge m6idn.24xlarge m6in.16xlarge m6in.24xlarge m7a.16xlarge m7a.24xlarge m7a.32xlarge m7a.48xlarge m7a.metal-48xl m7g.16xlarge m7g.metal m7gd.16xlarge m7gd.metal m7i-flex.16xlarge m7i.16xlarge m7i.24xlarge m7i.48xlarge m7i.metal-24xl m7i.metal-48xl m8g.16xlarge m8g.24xlarge m8g.48xlarge m8g.metal-24xl m8g.metal-48xl m8gd.16xlarge m8gd.24xlarge m8gd.48xlarge m8gd.metal-24xl m8gd.metal-48xl p3dn.24xlarge p4d.24xlarge p4de.24xlarge r4.16xlarge r5.16xlarge r5.24xlarge r5.metal r5a.16xlarge r5a.24xlarge r5ad.16xlarge r5ad.24xlarge r5b.16xlarge r5b.24xlarge r5b.metal r5d.16xlarge r5d.24xlarge r5d.metal r5dn.16xlarge r5dn.24xlarge r5dn.metal r5n.16xlarge r5n.24xlarge r5n.metal r6a.16xlarge r6a.24xlarge r6a.32xlarge r6a.48xlarge r6a.metal r6g.16xlarge r6g.metal r6gd.16xlarge r6gd.metal r6i.16xlarge r6i.24xlarge r6i.32xlarge r6i.metal r6id.16xlarge r6id.24xlarge r6id.32xlarge r6id.metal r6idn.16xlarge r6idn.24xlarge r6in.16xlarge r6in.24xlarge r7a.16xlarge r7a.24xlarge r7a.32xlarge r7a.48xlarge r7a.metal-48xl r7g.16xlarge r7g.metal r7gd.16xlarge r7gd.metal r7i.16xlarge r7i.24xlarge r7i.48xlarge r7i.metal-24xl r7i.metal-48xl r7iz.16xlarge r7iz.32xlarge r7iz.metal-16xl r7iz.metal-32xl r8g.16xlarge r8g.24xlarge r8g.48xlarge r8g.metal-24xl r8g.metal-48xl r8gd.16xlarge r8gd.24xlarge r8gd.48xlarge r8gd.metal-24xl r8gd.metal-48xl u-18tb1.metal u-24tb1.metal u-6tb1.112xlarge u-6tb1.56xlarge u7i-12tb.224xlarge u7i-6tb.112xlarge u7i-8tb.112xlarge vt1.24xlarge x2gd.16xlarge x2gd.metal x2idn.16xlarge x2idn.24xlarge x2idn.32xlarge x2idn.metal x2iedn.16xlarge x2iedn.24xlarge x2iedn.32xlarge x2iedn.metal x2iezn.12xlarge x2iezn.metal x8g.16xlarge x8g.24xlarge x8g.48xlarge x8g.metal-24xl x8g.metal-48xl z1d.12xlarge z1d.metal",
  ],
  [
    12,
    64,
    "c8a.12xlarge c8ib.96xlarge c8ib.metal-96xl c8in.96xlarge c8in.metal-96xl g7.12xlarge g7.48xlarge m8a.12xlarge m8ib.96xlarge m8ib.metal-96xl m8idb.96xlarge m8idb.metal-96xl m8idn.96xlarge m8idn.metal-96xl m8in.96xlarge m8in.metal-96xl r8a.12xlarge r8ib.96xlarge r8ib.metal-96xl r8idb.96xlarge r8idb.metal-96xl r8idn.96xlarge r8idn.metal-96xl r8in.96xlarge r8in.metal-96xl",
  ],
  [
    16,
    50,
    "c8gb.16xlarge c8gn.16xlarge i8ge.18xlarge i8ge.24xlarge i8ge.metal-24xl m8gb.16xlarge m8gn.16xlarge r8gb.16xlarge r8gn.16xlarge",
  ],
  [
    16,
    64,
    "c8a.16xlarge c8a.24xlarge c8a.metal-24xl c8i-flex.16xlarge c8i.16xlarge c8i.24xlarge c8ib.16xlarge c8ib.24xlarge c8ib.32xlarge c8id.16xlarge c8id.24xlarge c8in.16xlarge c8in.24xlarge c8in.32xlarge c9g.16xlarge c9gd.16xlarge m8a.16xlarge m8a.24xlarge m8a.metal-24xl m8azn.12xlarge m8azn.24xlarge m8azn.metal-12xl m8azn.metal-24xl m8i-flex.16xlarge m8i.16xlarge m8i.24xlarge m8ib.16xlarge m8ib.24xlarge m8ib.32xlarge m8id.16xlarge m8id.24xlarge m8idb.16xlarge m8idb.24xlarge m8idb.32xlarge m8idn.16xlarge m8idn.24xlarge m8idn.32xlarge m8in.16xlarge m8in.24xlarge m8in.32xlarge m9g.16xlarge m9gd.16xlarge r8a.16xlarge r8a.24xlarge r8a.metal-24xl r8i-flex.16xlarge r8i.16xlarge r8i.24xlarge r8ib.16xlarge r8ib.24xlarge r8ib.32xlarge r8id.16xlarge r8id.24xlarge r8idb.16xlarge r8idb.24xlarge r8idb.32xlarge r8idn.16xlarge r8idn.24xlarge r8idn.32xlarge r8in.16xlarge r8in.24xlarge r8in.32xlarge x8aedz.12xlarge x8aedz.24xlarge x8aedz.metal-12xl x8aedz.metal-24xl x8i.16xlarge x8i.24xlarge",
  ],
  [
    24,
    50,
    "c8gb.24xlarge c8gb.metal-24xl c8gn.24xlarge c8gn.metal-24xl i8ge.48xlarge i8ge.metal-48xl m8gb.24xlarge m8gb.metal-24xl m8gn.24xlarge m8gn.metal-24xl r8gb.24xlarge r8gb.metal-24xl r8gn.24xlarge r8gn.metal-24xl",
  ],
  [
    24,
    64,
    "c8a.48xlarge c8a.metal-48xl c8i.32xlarge c8i.48xlarge c8i.96xlarge c8i.metal-48xl c8i.metal-96xl c8ib.48xlarge c8ib.metal-48xl c8id.32xlarge c8id.48xlarge c8id.96xlarge c8id.metal-48xl c8id.metal-96xl c8in.48xlarge c8in.metal-48xl c9g.24xlarge c9g.48xlarge c9g.metal-48xl c9gd.24xlarge c9gd.48xlarge c9gd.metal-48xl g7.24xlarge m8a.48xlarge m8a.metal-48xl m8i.32xlarge m8i.48xlarge m8i.96xlarge m8i.metal-48xl m8i.metal-96xl m8ib.48xlarge m8ib.metal-48xl m8id.32xlarge m8id.48xlarge m8id.96xlarge m8id.metal-48xl m8id.metal-96xl m8idb.48xlarge m8idb.metal-48xl m8idn.48xlarge m8idn.metal-48xl m8in.48xlarge m8in.metal-48xl m9g.24xlarge m9g.48xlarge m9g.metal-48xl m9gd.24xlarge m9gd.48xlarge m9gd.metal-48xl r8a.48xlarge r8a.metal-48xl r8i.32xlarge r8i.48xlarge r8i.96xlarge r8i.metal-48xl r8i.metal-96xl r8ib.48xlarge r8ib.metal-48xl r8id.32xlarge r8id.48xlarge r8id.96xlarge r8id.metal-48xl r8id.metal-96xl r8idb.48xlarge r8idb.metal-48xl r8idn.48xlarge r8idn.metal-48xl r8in.48xlarge r8in.metal-48xl x8i.32xlarge x8i.48xlarge x8i.64xlarge x8i.96xlarge x8i.metal-48xl x8i.metal-96xl",
  ],
];

/**
 * The instance types the table knows on which the VPC CNI assigns no /28 prefixes: neither Nitro nor bare
 * metal (amazon-vpc-cni-k8s pkg/awsutils/awsutils.go IsPrefixDelegationSupported: `GetInstanceHypervisorFamily()
 * == "nitro" || IsInstanceBareMetal()`; each type's `HypervisorType` and `IsBareMetal` recorded from
 * `pkg/vpc/vpc_ip_resource_limit.go` at the commit above).
 */
export const NO_PREFIX_DELEGATION: ReadonlySet<string> = new Set(
  (
    "c1.medium c1.xlarge c3.2xlarge c3.4xlarge c3.8xlarge c3.large c3.xlarge c4.2xlarge c4.4xlarge c4.8xlarge " +
    "c4.large c4.xlarge cr1.8xlarge d2.2xlarge d2.4xlarge d2.8xlarge d2.xlarge f1.16xlarge f1.2xlarge f1.4xlarge " +
    "h1.16xlarge h1.2xlarge h1.4xlarge h1.8xlarge hs1.8xlarge i2.2xlarge i2.4xlarge i2.8xlarge i2.xlarge " +
    "i3.16xlarge i3.2xlarge i3.4xlarge i3.8xlarge i3.large i3.xlarge m1.large m1.medium m1.small m1.xlarge " +
    "m2.2xlarge m2.4xlarge m2.xlarge m3.2xlarge m3.large m3.medium m3.xlarge m4.10xlarge m4.16xlarge m4.2xlarge " +
    "m4.4xlarge m4.large m4.xlarge p3.16xlarge p3.2xlarge p3.8xlarge r3.2xlarge r3.4xlarge r3.8xlarge r3.large " +
    "r3.xlarge r4.16xlarge r4.2xlarge r4.4xlarge r4.8xlarge r4.large r4.xlarge t1.micro t2.2xlarge t2.large " +
    "t2.medium t2.micro t2.nano t2.small t2.xlarge x1.16xlarge x1.32xlarge x1e.16xlarge x1e.2xlarge " +
    "x1e.32xlarge x1e.4xlarge x1e.8xlarge x1e.xlarge"
  ).split(" "),
);
